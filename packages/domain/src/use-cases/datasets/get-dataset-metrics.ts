import type { DatasetMetrics } from "../../entities/metrics.js";
import type { DatasetManagementRepository } from "../../ports/dataset-repository.js";

/** The user's own metrics on a dataset (responded = submitted + discarded + draft). */
export class GetDatasetMetricsUseCase {
  constructor(private readonly datasets: DatasetManagementRepository) {}
  execute(datasetId: string): Promise<DatasetMetrics> {
    return this.datasets.getMetrics(datasetId);
  }
}
