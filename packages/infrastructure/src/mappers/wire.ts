import type {
  AnswerValue,
  AnswerValues,
  FieldProps,
  FieldSettings,
  MetadataPropertyProps,
  MetadataSettings,
  QuestionProps,
  QuestionSettings,
  RecordProps,
  RecordResponse,
  ResponseStatus,
  SuggestionProps,
  VectorProps,
} from "@tessera/domain";

/** Backend (api-contract) shapes and their mapping to the domain's props. */
export interface BackendField {
  id: string;
  name: string;
  title: string;
  required: boolean;
  settings: FieldSettings;
  dataset_id: string;
  updated_at?: string;
}
export interface BackendQuestion {
  id: string;
  name: string;
  title: string;
  description: string | null;
  required: boolean;
  settings: QuestionSettings;
  dataset_id: string;
  updated_at?: string;
}
export interface BackendMetadata {
  id: string;
  name: string;
  title: string;
  settings: MetadataSettings;
  visible_for_annotators: boolean;
  dataset_id: string;
  updated_at?: string;
}
export interface BackendVector {
  id: string;
  name: string;
  title: string;
  dimensions: number;
  dataset_id: string;
  updated_at?: string;
}
export type WireValues = { [name: string]: { value: AnswerValue } };
export interface BackendResponse {
  id: string;
  values: WireValues | null;
  status: ResponseStatus;
  record_id: string;
  user_id?: string;
  updated_at: string;
}
export interface BackendSuggestion {
  id: string;
  question_id: string;
  type?: string | null;
  value: AnswerValue;
  agent: string | null;
  score: number | number[] | null;
}
export interface BackendRecord {
  id: string;
  status?: "pending" | "completed";
  fields: { [name: string]: unknown };
  metadata?: { [name: string]: unknown } | null;
  external_id?: string | null;
  responses?: BackendResponse[];
  suggestions?: BackendSuggestion[];
  dataset_id: string;
  inserted_at: string;
  updated_at: string;
}

export const toField = (f: BackendField): FieldProps => ({
  id: f.id,
  name: f.name,
  title: f.title,
  required: f.required,
  datasetId: f.dataset_id,
  settings: f.settings,
  ...(f.updated_at ? { updatedAt: f.updated_at } : {}),
});

export const toQuestion = (q: BackendQuestion): QuestionProps => ({
  id: q.id,
  name: q.name,
  datasetId: q.dataset_id,
  title: q.title,
  description: q.description,
  required: q.required,
  settings: q.settings,
  ...(q.updated_at ? { updatedAt: q.updated_at } : {}),
});

export const toMetadata = (m: BackendMetadata): MetadataPropertyProps => ({
  id: m.id,
  name: m.name,
  title: m.title,
  settings: m.settings,
  visibleForAnnotators: m.visible_for_annotators,
  datasetId: m.dataset_id,
  ...(m.updated_at ? { updatedAt: m.updated_at } : {}),
});

export const toVector = (v: BackendVector): VectorProps => ({
  id: v.id,
  name: v.name,
  title: v.title,
  dimensions: v.dimensions,
  datasetId: v.dataset_id,
  ...(v.updated_at ? { updatedAt: v.updated_at } : {}),
});

export function fromWireValues(values: WireValues | null): AnswerValues {
  const out: AnswerValues = {};
  for (const [name, v] of Object.entries(values ?? {})) if (v && v.value !== undefined && v.value !== null) out[name] = v.value;
  return out;
}

export function toWireValues(values: AnswerValues): WireValues {
  const out: WireValues = {};
  for (const [name, value] of Object.entries(values)) out[name] = { value };
  return out;
}

export const toResponse = (r: BackendResponse): RecordResponse => ({
  id: r.id,
  status: r.status,
  values: fromWireValues(r.values),
  updatedAt: r.updated_at,
  recordId: r.record_id,
});

export const toSuggestion = (s: BackendSuggestion): SuggestionProps => ({
  id: s.id,
  questionId: s.question_id,
  value: s.value,
  score: s.score ?? null,
  agent: s.agent ?? null,
});

/** The first item of responses is the user's answer. */
export const toRecord = (r: BackendRecord, queryScore: number | null = null): RecordProps => ({
  id: r.id,
  datasetId: r.dataset_id,
  fields: r.fields ?? {},
  metadata: r.metadata ?? null,
  response: r.responses?.[0] ? toResponse(r.responses[0]) : null,
  suggestions: (r.suggestions ?? []).map(toSuggestion),
  insertedAt: r.inserted_at,
  updatedAt: r.updated_at,
  queryScore,
  taskStatus: r.status ?? "pending",
  externalId: r.external_id ?? null,
});
