import type { MetadataProperty } from "../../entities/metadata.js";
import { InvalidSettingsUpdateError } from "../../messages.js";
import type { MetadataRepository } from "../../ports/settings-repositories.js";
import { saveSetting } from "./save-setting.js";

/** PATCH /v1/metadata-properties/{id} with title and visible_for_annotators. */
export class UpdateMetadataSettingUseCase {
  constructor(private readonly metadata: MetadataRepository) {}
  execute(property: MetadataProperty): Promise<boolean> {
    if (!property.isValid) throw new InvalidSettingsUpdateError("Metadata");
    return saveSetting(property, () =>
      this.metadata.update(property.id, { title: property.title, visibleForAnnotators: property.visibleForAnnotators }),
    );
  }
}
