import type { DatasetSchema } from "../../records/dataset-schema.js";
import type { ExportRecord } from "./export-records.js";
import type { RecordView } from "./record-view.js";

/**
 * The flat shape of CSV and Parquet exports: one column per record property, field, metadata
 * property, vector and per question six columns (the Argilla `to_datasets` flattening):
 * `<q>.responses`, `<q>.responses.users`, `<q>.responses.status` (lists, one entry per response that
 * answers the question, in the same order) and `<q>.suggestion`, `<q>.suggestion.score`,
 * `<q>.suggestion.agent`; for owners and admins also `<q>.final` (the reviewer's final answer) per
 * question and `final_answer.reviewer`, `final_answer.updated_at` after them. docs/api.md "Record
 * exports" documents it.
 */
export type ColumnKind = "string" | "number" | "json";
export interface FlatColumn {
  name: string;
  kind: ColumnKind;
  value(record: ExportRecord): unknown;
}

export const RECORD_COLUMNS = ["id", "external_id", "status", "inserted_at", "updated_at"] as const;

export function flatColumns(schema: DatasetSchema, view: RecordView, vectors: boolean): FlatColumn[] {
  const reserved = new Set<string>(RECORD_COLUMNS);
  const columns: FlatColumn[] = RECORD_COLUMNS.map((name) => ({ name, kind: "string", value: (r) => r[name] }));
  for (const field of schema.fields) {
    const name = reserved.has(field.name) ? `field.${field.name}` : field.name;
    const kind: ColumnKind = field.settings.type === "text" || field.settings.type === "image" ? "string" : "json";
    columns.push({ name, kind, value: (r) => r.fields[field.name] });
  }
  for (const property of schema.metadataProperties) {
    if (!view.metadataVisible(property.name)) continue;
    columns.push({
      name: `metadata.${property.name}`,
      kind: property.settings.type === "terms" ? "json" : "number",
      value: (r) => r.metadata[property.name],
    });
  }
  if (vectors)
    for (const v of schema.vectorSettings) columns.push({ name: `vector.${v.name}`, kind: "json", value: (r) => r.vectors?.[v.name] });
  for (const q of schema.questions) {
    const answering = (r: ExportRecord) =>
      r.responses.filter((response) => q.name in response.values && response.values[q.name] !== undefined);
    columns.push(
      { name: `${q.name}.responses`, kind: "json", value: (r) => answering(r).map((response) => response.values[q.name]) },
      {
        name: `${q.name}.responses.users`,
        kind: "json",
        value: (r) => answering(r).map((response) => response.username ?? response.user_id),
      },
      { name: `${q.name}.responses.status`, kind: "json", value: (r) => answering(r).map((response) => response.status) },
      { name: `${q.name}.suggestion`, kind: "json", value: (r) => r.suggestions[q.name]?.value },
      { name: `${q.name}.suggestion.score`, kind: "json", value: (r) => r.suggestions[q.name]?.score },
      { name: `${q.name}.suggestion.agent`, kind: "string", value: (r) => r.suggestions[q.name]?.agent },
    );
    if (view.finalAnswers) columns.push({ name: `${q.name}.final`, kind: "json", value: (r) => r.final_answer?.values[q.name] });
  }
  if (view.finalAnswers)
    columns.push(
      { name: "final_answer.reviewer", kind: "string", value: (r) => r.final_answer?.reviewer },
      { name: "final_answer.updated_at", kind: "string", value: (r) => r.final_answer?.updated_at },
    );
  return columns;
}

/** A CSV cell: empty for no value, strings as they are, numbers and booleans as text, lists and objects as JSON. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}
