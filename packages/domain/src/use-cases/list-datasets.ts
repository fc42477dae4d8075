import type { DatasetRepository } from "../ports/dataset-repository.js";
import type { Dataset } from "../entities/dataset.js";

export class ListDatasetsUseCase {
  constructor(private readonly datasets: DatasetRepository) {}

  /** Datasets the user can see, most recently updated first. */
  async execute(): Promise<Dataset[]> {
    const list = await this.datasets.list();
    return [...list].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  }
}
