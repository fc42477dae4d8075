import { classifyColumn } from "../../entities/hub.js";
import type { UploadColumn, UploadMapping } from "./ports.js";

/** Where a file column goes in a dataset. */
export type TargetKind = "ignore" | "field" | "metadata" | "suggestion" | "response" | "vector" | "external_id";
export interface ColumnTarget {
  kind: TargetKind;
  name: string | null;
}
export const TARGET_KINDS: readonly TargetKind[] = ["ignore", "field", "metadata", "suggestion", "response", "vector", "external_id"];

/** The names a dataset offers for each kind of target. */
export interface MappingSettings {
  fields: string[];
  questions: string[];
  metadata: string[];
  vectors: string[];
}

/** A column's inferred type by the Hub import's rules: text, image, chat, labels, integer, float, or other. */
export function columnType(column: UploadColumn): "text" | "image" | "chat" | "label" | "labels" | "integer" | "float" | "terms" | "other" {
  const t = classifyColumn(column.feature);
  if (t.kind === "field") return t.type;
  if (t.kind === "question") return t.type === "label_selection" ? "label" : "labels";
  if (t.kind === "metadata") return t.type;
  return "other";
}

const stripped = (name: string, prefix: string, suffix = "") =>
  name.startsWith(prefix) && name.endsWith(suffix) ? name.slice(prefix.length, name.length - suffix.length) : null;

/**
 * A first mapping of the columns onto the dataset's settings: the columns of a Tessera export by
 * their names (`metadata.<m>`, `vector.<v>`, `<q>.suggestion`, `<q>.responses`, `external_id`), other
 * columns by name onto a field, question (as a suggestion) or metadata property, and a text column
 * onto the dataset's first field when nothing else matched. The parts of responses and suggestions
 * (users, status, score, agent) go with their column and are not mapped themselves.
 */
export function proposeTargets(columns: UploadColumn[], settings: MappingSettings): Map<string, ColumnTarget> {
  const targets = new Map<string, ColumnTarget>();
  const has = (list: string[], name: string | null): name is string => name !== null && list.includes(name);
  for (const column of columns) {
    const n = column.name;
    let target: ColumnTarget = { kind: "ignore", name: null };
    if (n === "external_id" || (n === "id" && !columns.some((c) => c.name === "external_id") && column.hint === null))
      target = { kind: "external_id", name: null };
    else if (has(settings.metadata, stripped(n, "metadata."))) target = { kind: "metadata", name: stripped(n, "metadata.") };
    else if (has(settings.vectors, stripped(n, "vector."))) target = { kind: "vector", name: stripped(n, "vector.") };
    else if (has(settings.questions, stripped(n, "", ".suggestion"))) target = { kind: "suggestion", name: stripped(n, "", ".suggestion") };
    else if (has(settings.questions, stripped(n, "", ".responses"))) target = { kind: "response", name: stripped(n, "", ".responses") };
    else if (column.hint === null && settings.fields.includes(n)) target = { kind: "field", name: n };
    else if (column.hint === null && settings.metadata.includes(n)) target = { kind: "metadata", name: n };
    else if (column.hint === null && settings.questions.includes(n)) target = { kind: "suggestion", name: n };
    targets.set(n, target);
  }
  const firstField = settings.fields[0];
  if (firstField && ![...targets.values()].some((t) => t.kind === "field")) {
    const text = columns.find((c) => c.hint === null && targets.get(c.name)?.kind === "ignore" && columnType(c) === "text");
    if (text) targets.set(text.name, { kind: "field", name: firstField });
  }
  return targets;
}

/** The import mapping of the chosen targets (columns with a kind but no name are left out). */
export function toMapping(targets: Map<string, ColumnTarget>): UploadMapping {
  const mapping: UploadMapping = { fields: [], metadata: [], suggestions: [], responses: [], vectors: [], external_id: null };
  const lists = {
    field: mapping.fields,
    metadata: mapping.metadata,
    suggestion: mapping.suggestions,
    response: mapping.responses,
    vector: mapping.vectors,
  } as const;
  for (const [source, target] of targets) {
    if (target.kind === "external_id") mapping.external_id = source;
    else if (target.kind !== "ignore" && target.name) lists[target.kind].push({ source, target: target.name });
  }
  return mapping;
}

/** True when the mapping stores something. */
export const mapsAnything = (mapping: UploadMapping): boolean =>
  mapping.fields.length + mapping.metadata.length + mapping.suggestions.length + mapping.responses.length + mapping.vectors.length > 0 ||
  mapping.external_id !== null;
