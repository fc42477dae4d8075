import { DatasetCreation, type HubSubsetInfo } from "../../entities/hub.js";
import { CreateDatasetUseCase } from "../datasets/create-dataset.js";
import type { Clock } from "../../ports/more-ports.js";
import type { UploadMapping, UploadPreview, UploadProgress, RecordUploadRepository } from "./ports.js";

/** Progress checks while a new dataset's import starts: every second, for at most this many seconds. */
export const UPLOAD_FIRST_RECORDS_TRIES = 30;
const FIRST_RECORDS = 10;
const SETTLED: readonly UploadProgress["status"][] = ["finished", "failed", "cancelled"];

/** The creation model of an uploaded file: one subset whose features are the file's typed columns (the Hub typing rules apply). */
export function creationFromUpload(preview: UploadPreview): DatasetCreation {
  const features = Object.fromEntries(preview.columns.map((c) => [c.name, c.feature]));
  const info: HubSubsetInfo = { name: "file", splits: ["file"], features };
  const creation = DatasetCreation.fromInfo(preview.filename, [info]);
  creation.name = preview.filename.replace(/\.[^.]+$/, "");
  return creation;
}

/**
 * A new dataset from an uploaded file, by the Hub creation flow (workspace, dataset, fields,
 * questions, metadata, publish): then the file is imported with the creation's mapping (questions
 * mapped to a column receive its values as suggestions) and the use case waits until the import has
 * settled or stored its first records. Any failure deletes the dataset (null).
 */
export class CreateDatasetFromUploadUseCase {
  constructor(
    private readonly create: (fill: (datasetId: string, creation: DatasetCreation) => Promise<void>) => CreateDatasetUseCase,
    private readonly uploads: RecordUploadRepository,
    private readonly clock: Clock,
  ) {}

  execute(creation: DatasetCreation, uploadId: string): Promise<string | null> {
    return this.create(async (datasetId, c) => {
      const m = c.mapping;
      const mapping: UploadMapping = {
        fields: m.fields,
        metadata: m.metadata,
        suggestions: m.suggestions,
        responses: [],
        vectors: [],
        external_id: m.external_id ?? null,
      };
      let progress = await this.uploads.startImport(uploadId, datasetId, mapping);
      for (let i = 0; i < UPLOAD_FIRST_RECORDS_TRIES && !SETTLED.includes(progress.status) && progress.rowsStored < FIRST_RECORDS; i++) {
        await this.clock.delay(1000);
        progress = await this.uploads.progress(uploadId);
      }
      if (progress.status === "failed" && progress.rowsStored === 0) throw new Error(progress.error ?? "The import failed");
    }).execute(creation);
  }
}
