import type { QuestionType } from "../entities/question-type.js";
import type { SortItem, SortKey } from "./record-criteria.js";

/**
 * Which response filters a question type gets (api-contract section 4, `{"entity": "response", "question": q}`):
 * - `terms`: the answer is one of the chosen option values (label, multi-label: any chosen label; rating: a value);
 * - `range`: the answer lies within bounds (rating);
 * - `exact`: the answer equals a given text (text: a terms filter with one string).
 * Ranking and span answers are lists of objects ({value, rank} / {start, end, label}); the contract's scope
 * has no rank or label property, so a value filter on them would match every ranked record: none is offered.
 */
export type ResponseFilterKind = "terms" | "range" | "exact";

export function responseFilterKinds(type: QuestionType): ResponseFilterKind[] {
  switch (type) {
    case "label_selection":
    case "multi_label_selection":
      return ["terms"];
    case "rating":
      return ["terms", "range"];
    case "text":
      return ["exact"];
    default:
      return [];
  }
}

/** Suggestion filters per question type: suggested values (option types), score range and agent (every type). */
export function suggestionFilterProperties(type: QuestionType): Array<"value" | "score" | "agent"> {
  return hasOptionValues(type) ? ["value", "score", "agent"] : ["score", "agent"];
}

/** Answers that are option values (filterable and sortable by value). */
export function hasOptionValues(type: QuestionType): boolean {
  return type === "label_selection" || type === "multi_label_selection" || type === "rating";
}

/** Answers with one scalar value per record, so a sort by it is well defined (single label, rating). */
export function isSortableByValue(type: QuestionType): boolean {
  return type === "label_selection" || type === "rating";
}

export interface SortableQuestion {
  name: string;
  type: QuestionType;
}

/**
 * The sort keys the annotation screen offers: record inserted/updated time, each metadata property,
 * suggestion score of every question, suggestion value and response value of single-value questions.
 */
export function sortableKeys(questions: SortableQuestion[], metadataNames: string[]): SortKey[] {
  const keys: SortKey[] = [
    { entity: "record", property: "inserted_at" },
    { entity: "record", property: "updated_at" },
    ...metadataNames.map((name): SortKey => ({ entity: "metadata", name })),
  ];
  for (const q of questions) {
    keys.push({ entity: "suggestion", question: q.name, property: "score" });
    if (isSortableByValue(q.type)) {
      keys.push({ entity: "suggestion", question: q.name, property: "value" });
      keys.push({ entity: "response", question: q.name });
    }
  }
  return keys;
}

/** A stable string id of a sort key (for select options and duplicates). */
export function sortKeyId(key: SortKey): string {
  switch (key.entity) {
    case "record":
      return `record:${key.property}`;
    case "metadata":
      return `metadata:${key.name}`;
    case "suggestion":
      return `suggestion.${key.property}:${key.question}`;
    case "response":
      return `response:${key.question}`;
  }
}

export function sortKeyFromId(id: string, available: SortKey[]): SortKey | null {
  return available.find((k) => sortKeyId(k) === id) ?? null;
}

/** The contract allows 1..10 sort items. */
export const MAX_SORT_ITEMS = 10;

/** Drops repeated keys (the first wins) and keeps at most 10 items. */
export function normalizeSort(items: SortItem[]): SortItem[] {
  const seen = new Set<string>();
  const out: SortItem[] = [];
  for (const item of items) {
    const id = sortKeyId(item.key);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(item);
  }
  return out.slice(0, MAX_SORT_ITEMS);
}
