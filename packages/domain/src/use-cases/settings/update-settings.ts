import type { Field } from "../../entities/field.js";
import type { MetadataProperty } from "../../entities/metadata.js";
import type { Question } from "../../entities/question.js";
import type { Vector } from "../../entities/vector.js";
import { InvalidSettingsUpdateError } from "../../messages.js";
import type { FieldRepository, MetadataRepository, QuestionRepository, VectorRepository } from "../../ports/settings-repositories.js";

/** Shared rule: invalid edits throw; a failed save reverts silently; a successful one takes updated_at as baseline. */
async function save(entity: { restore(): void; commit(updatedAt?: string): void }, run: () => Promise<{ updatedAt?: string }>): Promise<boolean> {
  try {
    const saved = await run();
    entity.commit(saved.updatedAt);
    return true;
  } catch {
    entity.restore();
    return false;
  }
}

/** PATCH /v1/questions/{id} with title, description (null when blank) and settings. */
export class UpdateQuestionSettingUseCase {
  constructor(private readonly questions: QuestionRepository) {}
  execute(question: Question): Promise<boolean> {
    if (!question.isValid) throw new InvalidSettingsUpdateError("Question");
    return save(question, () => this.questions.update(question.id, { title: question.title.trim(), description: question.descriptionForUpdate, settings: question.settings }));
  }
}

/** PATCH /v1/fields/{id} with title (the name when empty) and settings. */
export class UpdateFieldSettingUseCase {
  constructor(private readonly fields: FieldRepository) {}
  execute(field: Field): Promise<boolean> {
    if (!field.isValid) throw new InvalidSettingsUpdateError("Field");
    return save(field, () => this.fields.update(field.id, { title: field.titleForUpdate, settings: field.settings }));
  }
}

/** PATCH /v1/metadata-properties/{id} with title and visible_for_annotators. */
export class UpdateMetadataSettingUseCase {
  constructor(private readonly metadata: MetadataRepository) {}
  execute(property: MetadataProperty): Promise<boolean> {
    if (!property.isValid) throw new InvalidSettingsUpdateError("Metadata");
    return save(property, () => this.metadata.update(property.id, { title: property.title, visibleForAnnotators: property.visibleForAnnotators }));
  }
}

/** PATCH /v1/vectors-settings/{id} with title. */
export class UpdateVectorSettingUseCase {
  constructor(private readonly vectors: VectorRepository) {}
  execute(vector: Vector): Promise<boolean> {
    if (!vector.isValid) throw new InvalidSettingsUpdateError("Vector");
    return save(vector, () => this.vectors.update(vector.id, { title: vector.title }));
  }
}
