import type { Dataset } from "../../entities/dataset.js";
import { Field } from "../../entities/field.js";
import { MetadataProperty, visibleMetadataFor } from "../../entities/metadata.js";
import { Question } from "../../entities/question.js";
import { Vector } from "../../entities/vector.js";
import type { DatasetManagementRepository } from "../../ports/dataset-repository.js";
import type { FieldRepository, MetadataRepository, QuestionRepository, VectorRepository } from "../../ports/settings-repositories.js";

export interface DatasetSettings {
  dataset: Dataset;
  questions: Question[];
  fields: Field[];
  vectors: Vector[];
  /** The metadata properties the user may see (annotators: only those visible for annotators). */
  metadata: MetadataProperty[];
  /** Whether the full settings were loaded for editing (admin or owner). */
  isFull: boolean;
}

/**
 * Admins and owners load the dataset with its full settings (questions, fields, vectors, metadata)
 * for editing; a failure of any list fails the load.
 *
 * Annotators load what annotation needs to read: the dataset, its questions and fields, the vector
 * settings ('Find similar') and the metadata properties visible to them (`/me/.../metadata-properties`,
 * which the server filters; filtered here too). Only the dataset is mandatory for them: a list that
 * fails to load is left empty, so the annotation screen still opens. `isFull` stays false.
 */
export class LoadDatasetWithSettingsUseCase {
  constructor(
    private readonly datasets: DatasetManagementRepository,
    private readonly questions: QuestionRepository,
    private readonly fields: FieldRepository,
    private readonly vectors: VectorRepository,
    private readonly metadata: MetadataRepository,
  ) {}

  async execute(datasetId: string, user: { isAdminOrOwner: boolean }): Promise<DatasetSettings> {
    const full = user.isAdminOrOwner;
    const optional = <T>(load: Promise<T[]>): Promise<T[]> => (full ? load : load.catch(() => []));
    const [dataset, questions, fields, vectors, metadata] = await Promise.all([
      this.datasets.getById(datasetId),
      optional(this.questions.list(datasetId)),
      optional(this.fields.list(datasetId)),
      optional(this.vectors.list(datasetId)),
      optional(this.metadata.list(datasetId)),
    ]);
    return {
      dataset,
      questions: questions.map((q) => new Question(q)),
      fields: fields.map((f) => new Field(f)),
      vectors: vectors.map((v) => new Vector(v)),
      metadata: visibleMetadataFor(
        metadata.map((m) => new MetadataProperty(m)),
        full,
      ),
      isFull: full,
    };
  }
}
