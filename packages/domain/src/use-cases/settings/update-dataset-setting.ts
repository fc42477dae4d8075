import type { Dataset, DatasetPart } from "../../entities/dataset.js";
import { ValidationError } from "../../errors/validation-error.js";
import type { DatasetManagementRepository } from "../../ports/dataset-repository.js";

/**
 * Saves one part of the dataset settings (guidelines, distribution, allowExtraMetadata).
 * On success the baseline takes the returned updated_at; on failure the part reverts silently.
 */
export class UpdateDatasetSettingUseCase {
  constructor(private readonly datasets: DatasetManagementRepository) {}

  async execute(dataset: Dataset, part: DatasetPart): Promise<boolean> {
    const errors = part === "allowExtraMetadata" ? [] : dataset.validate()[part];
    if (errors[0]) throw new ValidationError(errors[0]);
    try {
      const { updatedAt } = await this.datasets.update(dataset.id, dataset.changeFor(part));
      dataset.commit(part, updatedAt);
      return true;
    } catch {
      dataset.restore(part);
      return false;
    }
  }
}
