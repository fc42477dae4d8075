import type { FieldProps, FieldSettings } from "../entities/field.js";
import type { QuestionProps, QuestionSettings } from "../entities/question.js";
import type { MetadataMetrics, MetadataPropertyProps, MetadataSettings } from "../entities/metadata.js";
import type { VectorProps } from "../entities/vector.js";

export interface Updated {
  updatedAt: string;
}

export interface FieldCreate {
  name: string;
  title: string;
  required: boolean;
  settings: FieldSettings;
}
export interface FieldRepository {
  /** GET /v1/datasets/{id}/fields; throws ERROR_FETCHING_FIELDS. */
  list(datasetId: string): Promise<FieldProps[]>;
  /** POST /v1/datasets/{id}/fields; throws ERROR_PATCHING_FIELDS. */
  create(datasetId: string, field: FieldCreate): Promise<FieldProps>;
  /** PATCH /v1/fields/{id} (title, settings); throws ERROR_PATCHING_FIELDS. */
  update(fieldId: string, change: { title: string; settings: FieldSettings }): Promise<FieldProps>;
}

export interface QuestionCreate {
  name: string;
  title: string;
  description?: string | null;
  required: boolean;
  settings: QuestionSettings;
}
export interface QuestionRepository {
  /** GET /v1/datasets/{id}/questions; throws ERROR_FETCHING_QUESTIONS. */
  list(datasetId: string): Promise<QuestionProps[]>;
  /** POST /v1/datasets/{id}/questions; throws ERROR_PATCHING_QUESTIONS. */
  create(datasetId: string, question: QuestionCreate): Promise<QuestionProps>;
  /** PATCH /v1/questions/{id} (title, description, settings); throws ERROR_PATCHING_QUESTIONS. */
  update(questionId: string, change: { title: string; description: string | null; settings: QuestionSettings }): Promise<QuestionProps>;
}

export interface MetadataCreate {
  name: string;
  title: string;
  settings: MetadataSettings;
  visibleForAnnotators?: boolean;
}
export interface MetadataRepository {
  /** GET /v1/me/datasets/{id}/metadata-properties; throws ERROR_FETCHING_METADATA. */
  list(datasetId: string): Promise<MetadataPropertyProps[]>;
  /** POST /v1/datasets/{id}/metadata-properties; throws ERROR_CREATING_METADATA. */
  create(datasetId: string, metadata: MetadataCreate): Promise<MetadataPropertyProps>;
  /** PATCH /v1/metadata-properties/{id}; throws ERROR_UPDATING_METADATA. */
  update(metadataId: string, change: { title: string; visibleForAnnotators: boolean }): Promise<MetadataPropertyProps>;
  /** GET /v1/metadata-properties/{id}/metrics; throws ERROR_FETCHING_METADATA_METRIC. */
  getMetrics(metadataId: string): Promise<MetadataMetrics>;
}

export interface VectorRepository {
  /** GET /v1/datasets/{id}/vectors-settings; throws ERROR_FETCHING_VECTORS. */
  list(datasetId: string): Promise<VectorProps[]>;
  /** PATCH /v1/vectors-settings/{id}; throws ERROR_PATCHING_VECTORS. */
  update(vectorId: string, change: { title: string }): Promise<VectorProps>;
}
