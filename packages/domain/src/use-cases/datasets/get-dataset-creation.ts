import { DatasetCreation } from "../../entities/hub.js";
import type { HubRepository } from "../../ports/more-ports.js";

/** Builds the dataset-creation model from a Hub repository's dataset_info. */
export class GetDatasetCreationUseCase {
  constructor(private readonly hub: HubRepository) {}
  async execute(repoId: string): Promise<DatasetCreation> {
    const info = await this.hub.getDatasetInfo(repoId);
    return DatasetCreation.fromInfo(repoId, info.subsets);
  }
}
