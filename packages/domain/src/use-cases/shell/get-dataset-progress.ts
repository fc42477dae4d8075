import type { DatasetRepository } from "../../ports/dataset-repository.js";
import type { Progress } from "../../entities/progress.js";

/** Team progress of one dataset (home table, GET /v1/datasets/{id}/progress). */
export class GetDatasetProgressUseCase {
  constructor(private readonly datasets: DatasetRepository) {}

  execute(datasetId: string): Promise<Progress> {
    return this.datasets.getProgress(datasetId);
  }
}
