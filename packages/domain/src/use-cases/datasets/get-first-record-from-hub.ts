import type { DatasetCreation } from "../../entities/hub.js";
import type { HubRepository } from "../../ports/more-ports.js";

/** The first row of the selected subset and split, for the preview; a failure gives an empty record. */
export class GetFirstRecordFromHubUseCase {
  constructor(private readonly hub: HubRepository) {}
  async execute(creation: DatasetCreation): Promise<{ [column: string]: unknown }> {
    try {
      const row = await this.hub.getFirstRow(creation.repoId, creation.selectedSubset.name, creation.selectedSubset.split);
      const externalId = creation.mapping.external_id;
      if (externalId) {
        const { [externalId]: _omit, ...rest } = row;
        return rest;
      }
      return row;
    } catch {
      return {};
    }
  }
}
