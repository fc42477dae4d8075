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
  metadata: MetadataProperty[];
  /** Whether the full settings were loaded (admin or owner). */
  isFull: boolean;
}

/** Admins and owners load the dataset with its questions, fields, vectors and metadata; others load only the dataset. */
export class LoadDatasetWithSettingsUseCase {
  constructor(
    private readonly datasets: DatasetManagementRepository,
    private readonly questions: QuestionRepository,
    private readonly fields: FieldRepository,
    private readonly vectors: VectorRepository,
    private readonly metadata: MetadataRepository,
  ) {}

  async execute(datasetId: string, user: { isAdminOrOwner: boolean }): Promise<DatasetSettings> {
    if (!user.isAdminOrOwner) {
      return { dataset: await this.datasets.getById(datasetId), questions: [], fields: [], vectors: [], metadata: [], isFull: false };
    }
    const [dataset, questions, fields, vectors, metadata] = await Promise.all([
      this.datasets.getById(datasetId),
      this.questions.list(datasetId),
      this.fields.list(datasetId),
      this.vectors.list(datasetId),
      this.metadata.list(datasetId),
    ]);
    return {
      dataset,
      questions: questions.map((q) => new Question(q)),
      fields: fields.map((f) => new Field(f)),
      vectors: vectors.map((v) => new Vector(v)),
      metadata: visibleMetadataFor(metadata.map((m) => new MetadataProperty(m)), true),
      isFull: true,
    };
  }
}
