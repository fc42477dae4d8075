import type { FieldProps } from "../entities/field.js";
import type { QuestionProps, QuestionSettings } from "../entities/question.js";
import type { RecordProps } from "../entities/record.js";
import type { RecordResponse, ResponseStatus } from "../entities/answer.js";

/** Test fixtures shared by the domain's tests. */
export function question(name: string, settings: QuestionSettings, required = true): QuestionProps {
  return { id: `q-${name}`, name, datasetId: "d1", title: ` ${name} title `, description: null, required, settings };
}

export const opts = (...values: Array<string | number>) => values.map((value) => ({ value, text: String(value) }));

export const QUESTIONS = {
  label: question("label", { type: "label_selection", options: opts("positive", "negative") }),
  multi: question("multi", { type: "multi_label_selection", options: opts("a", "b", "c", "d"), options_order: "suggestion" }, false),
  rating: question("rating", { type: "rating", options: opts(1, 2, 3) }, false),
  text: question("text", { type: "text", use_markdown: false }, false),
  ranking: question("ranking", { type: "ranking", options: opts("x", "y") }, false),
  span: question("span", { type: "span", field: "text", options: opts("PER", "ORG") }, false),
};

export const FIELDS: FieldProps[] = [
  { id: "f-text", name: "text", title: "Text", required: true, datasetId: "d1", settings: { type: "text", use_markdown: false } },
  { id: "f-chat", name: "chat", title: "Chat", required: false, datasetId: "d1", settings: { type: "chat", use_markdown: true } },
  { id: "f-image", name: "image", title: "Image", required: false, datasetId: "d1", settings: { type: "image" } },
  {
    id: "f-custom",
    name: "custom",
    title: "Custom",
    required: false,
    datasetId: "d1",
    settings: { type: "custom", template: "<b>{{record.fields.text}}</b>" },
  },
];

export function response(status: ResponseStatus, values: RecordResponse["values"], id = "resp-1", recordId = "r1"): RecordResponse {
  return { id, status, values, updatedAt: "2026-01-01T00:00:00", recordId };
}

export function recordProps(id: string, overrides: Partial<RecordProps> = {}): RecordProps {
  return {
    id,
    datasetId: "d1",
    fields: { text: `text of ${id}`, chat: "hello", image: { src: "http://img/x.png" }, custom: { a: 1 } },
    metadata: null,
    response: null,
    suggestions: [],
    insertedAt: "2026-01-01T00:00:00",
    updatedAt: "2026-01-01T00:00:00",
    queryScore: null,
    taskStatus: "pending",
    ...overrides,
  };
}
