import type { Vector } from "../../entities/vector.js";
import { InvalidSettingsUpdateError } from "../../messages.js";
import type { VectorRepository } from "../../ports/settings-repositories.js";
import { saveSetting } from "./save-setting.js";

/** PATCH /v1/vectors-settings/{id} with title. */
export class UpdateVectorSettingUseCase {
  constructor(private readonly vectors: VectorRepository) {}
  execute(vector: Vector): Promise<boolean> {
    if (!vector.isValid) throw new InvalidSettingsUpdateError("Vector");
    return saveSetting(vector, () => this.vectors.update(vector.id, { title: vector.title }));
  }
}
