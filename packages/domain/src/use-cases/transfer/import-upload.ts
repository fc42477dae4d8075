import type { RecordUploadRepository, UploadMapping, UploadProgress } from "./ports.js";

/** Starts importing an uploaded file into a published dataset with a mapping (a background job on the server). */
export class ImportUploadUseCase {
  constructor(private readonly uploads: RecordUploadRepository) {}
  execute(uploadId: string, datasetId: string, mapping: UploadMapping): Promise<UploadProgress> {
    return this.uploads.startImport(uploadId, datasetId, mapping);
  }
}
