import type { DatasetActivityRepository } from "./ports.js";

/**
 * Whether a dataset already holds user responses: distribution settings can't be modified then
 * (spec section 4). A failed call answers false, so the server stays the judge.
 */
export class HasDatasetResponsesUseCase {
  constructor(private readonly activity: DatasetActivityRepository) {}
  async execute(datasetId: string): Promise<boolean> {
    try {
      return (await this.activity.countResponses(datasetId)) > 0;
    } catch {
      return false;
    }
  }
}
