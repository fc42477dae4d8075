import { IMPORT_MIN_RECORDS, IMPORT_POLL_INTERVAL_MS, IMPORT_POLL_TRIES } from "../../constants.js";
import type { DatasetCreation } from "../../entities/hub.js";
import type { DatasetManagementRepository, DatasetRepository } from "../../ports/dataset-repository.js";
import type { FieldRepository, MetadataRepository, QuestionRepository } from "../../ports/settings-repositories.js";
import type { Clock, WorkspaceRepository } from "../../ports/more-ports.js";

/**
 * Dataset creation from the Hub (spec section 4): workspace if it has no id → dataset →
 * fields, questions, metadata → publish → import → poll progress (10 × 3000 ms until ≥ 10
 * records). Any failure after the dataset exists deletes it; failures give null.
 */
export class CreateDatasetUseCase {
  constructor(
    private readonly datasets: DatasetManagementRepository,
    private readonly progress: Pick<DatasetRepository, "getProgress">,
    private readonly workspaces: WorkspaceRepository,
    private readonly fields: FieldRepository,
    private readonly questions: QuestionRepository,
    private readonly metadata: MetadataRepository,
    private readonly clock: Clock,
    /** Fills the new, published dataset; the default imports the Hub repository and waits for its first records. */
    private readonly fill: ((datasetId: string, creation: DatasetCreation) => Promise<void>) | null = null,
  ) {}

  async execute(creation: DatasetCreation): Promise<string | null> {
    const subset = creation.selectedSubset;
    const mapping = creation.mapping;
    let datasetId: string;
    try {
      const ws = creation.workspace;
      if (!ws) return null;
      const workspaceId = ws.id ?? (await this.workspaces.create(ws.name)).id;
      datasetId = await this.datasets.create({
        name: creation.name.trim(),
        workspaceId,
        metadata: { repoId: creation.repoId, subset: subset.name, split: subset.split, mapping },
      });
    } catch {
      return null;
    }
    try {
      for (const f of subset.fields) {
        if (f.type === "no mapping") continue;
        const settings = f.type === "image" ? { type: f.type } : { type: f.type, use_markdown: f.useMarkdown };
        await this.fields.create(datasetId, { name: f.name, title: f.title || f.name, required: f.required, settings });
      }
      for (const q of subset.questions) {
        await this.questions.create(datasetId, { name: q.name, title: q.title || q.name, required: q.required, settings: q.toSettings() });
      }
      for (const m of subset.metadata) {
        await this.metadata.create(datasetId, { name: m.name, title: m.title || m.name, settings: { type: m.type } });
      }
      await this.datasets.publish(datasetId);
      if (this.fill) {
        await this.fill(datasetId, creation);
        return datasetId;
      }
      await this.datasets.import(datasetId, { name: creation.repoId, subset: subset.name, split: subset.split, mapping });
      for (let i = 0; i < IMPORT_POLL_TRIES; i++) {
        await this.clock.delay(IMPORT_POLL_INTERVAL_MS);
        const p = await this.progress.getProgress(datasetId);
        if (p.total >= IMPORT_MIN_RECORDS) break;
      }
      return datasetId;
    } catch {
      await this.datasets.delete(datasetId).catch(() => undefined);
      return null;
    }
  }
}
