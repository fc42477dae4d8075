import type { Field } from "../../entities/field.js";
import { InvalidSettingsUpdateError } from "../../messages.js";
import type { FieldRepository } from "../../ports/settings-repositories.js";
import { saveSetting } from "./save-setting.js";

/** PATCH /v1/fields/{id} with title (the name when empty) and settings. */
export class UpdateFieldSettingUseCase {
  constructor(private readonly fields: FieldRepository) {}
  execute(field: Field): Promise<boolean> {
    if (!field.isValid) throw new InvalidSettingsUpdateError("Field");
    return saveSetting(field, () => this.fields.update(field.id, { title: field.titleForUpdate, settings: field.settings }));
  }
}
