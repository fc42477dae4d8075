import type { DatasetManagementRepository } from "../../ports/dataset-repository.js";

/** Danger zone: deletes the dataset (only HTTP 200 counts as success). */
export class DeleteDatasetUseCase {
  constructor(private readonly datasets: DatasetManagementRepository) {}
  execute(datasetId: string): Promise<void> {
    return this.datasets.delete(datasetId);
  }
}
