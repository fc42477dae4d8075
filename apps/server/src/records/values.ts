import type { DatasetSchema, FieldDef, MetadataPropertyDef, OptionSetting, QuestionDef } from "./dataset-schema.js";

/**
 * Business validation of record fields, metadata, vectors, response values and suggestion values
 * against the dataset settings (contract 3.5-3.12). Each validator throws a ValueError-like
 * `RecordValueError` whose message is the text after "... because " in the bulk messages.
 */
export class RecordValueError extends Error {}

const fail = (message: string): never => { throw new RecordValueError(message); };

/** Python-style repr, so messages read like the reference server's (`'x'`, `['a', 'b']`). */
export function pyRepr(value: unknown): string {
  if (typeof value === "string") return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
  return String(value);
}

export function pyType(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "string") return "str";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (Array.isArray(value)) return "list";
  return "dict";
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------- fields

const IMAGE_MIME_TYPES = new Set(["image/avif", "image/gif", "image/ico", "image/jpeg", "image/jpg", "image/png", "image/svg", "image/svg+xml", "image/webp"]);

function validateImage(name: string, value: unknown): void {
  if (typeof value !== "string") fail(`Wrong value found for field ${pyRepr(name)}. Expected 'str', found ${pyRepr(pyType(value))}`);
  const url = value as string;
  if (url.startsWith("data:")) {
    if (url.length > 5_000_000) fail(`image field ${pyRepr(name)} data URL is too long, the maximum is 5000000 characters`);
    const mime = /^data:([^;,]+)/.exec(url)?.[1]?.toLowerCase();
    if (!mime || !IMAGE_MIME_TYPES.has(mime)) fail(`image field ${pyRepr(name)} has an invalid data URL MIME type: ${pyRepr(mime ?? "")}`);
    return;
  }
  if (url.length > 2038) fail(`image field ${pyRepr(name)} URL is too long, the maximum is 2038 characters`);
  let parsed: URL | null = null;
  try { parsed = new URL(url); } catch { parsed = null; }
  if (!parsed || !["http:", "https:"].includes(parsed.protocol) || !parsed.host || parsed.pathname.length === 0) {
    fail(`image field ${pyRepr(name)} has an invalid URL: it must be an http(s) URL with a host and a path, or a data URL`);
  }
}

function validateChat(name: string, value: unknown): void {
  if (!Array.isArray(value)) fail(`Wrong value found for field ${pyRepr(name)}. Expected 'list', found ${pyRepr(pyType(value))}`);
  const messages = value as unknown[];
  if (messages.length > 500) fail(`chat field ${pyRepr(name)} has ${messages.length} messages, the maximum is 500`);
  messages.forEach((m, i) => {
    if (!isPlainObject(m) || typeof m.role !== "string" || typeof m.content !== "string") {
      fail(`chat field ${pyRepr(name)} message at position ${i} must be an object with string 'role' and 'content'`);
    }
    const msg = m as { role: string; content: string };
    if (msg.role.length < 1 || msg.role.length > 20 || !/^\S+$/.test(msg.role)) fail(`chat field ${pyRepr(name)} message at position ${i} has an invalid role: 1 to 20 characters without whitespace`);
    if (msg.content.length > 20000) fail(`chat field ${pyRepr(name)} message at position ${i} content is longer than 20000 characters`);
  });
}

function validateFieldValue(field: FieldDef, value: unknown): void {
  switch (field.settings.type) {
    case "text":
      if (typeof value !== "string") fail(`Wrong value found for field ${pyRepr(field.name)}. Expected 'str', found ${pyRepr(pyType(value))}`);
      return;
    case "image": return validateImage(field.name, value);
    case "chat": return validateChat(field.name, value);
    case "custom":
      if (!isPlainObject(value)) fail(`Wrong value found for field ${pyRepr(field.name)}. Expected 'dict', found ${pyRepr(pyType(value))}`);
      return;
  }
}

/** Contract 3.10: fields of a new record (required values present, no unknown fields, per-type values). */
export function validateFields(schema: DatasetSchema, fields: Record<string, unknown> | null | undefined): void {
  if (!fields || Object.keys(fields).length === 0) fail("fields cannot be empty");
  const values = fields as Record<string, unknown>;
  for (const field of schema.fields) {
    const value = values[field.name];
    if (value === undefined || value === null) {
      if (field.required) fail(`missing required value for field: ${pyRepr(field.name)}`);
      continue;
    }
    validateFieldValue(field, value);
  }
  const unknown = Object.keys(values).filter((k) => !schema.fieldByName.has(k));
  if (unknown.length > 0) fail(`found fields values for non configured fields: ${pyRepr(unknown)}`);
}

// ---------------------------------------------------------------- metadata

function validateMetadataValue(property: MetadataPropertyDef, value: unknown): void {
  const settings = property.settings;
  const because = (reason: string): never => fail(`metadata is not valid: ${pyRepr(property.name)} metadata property validation failed because ${reason}`);
  if (typeof value === "number" && !Number.isFinite(value)) because(`${pyRepr(String(value))} is not a valid number`);
  if (settings.type === "terms") {
    const terms = Array.isArray(value) ? value : [value];
    for (const term of terms) {
      if (typeof term !== "string" && typeof term !== "number" && typeof term !== "boolean") because(`${pyRepr(term)} is not a valid term`);
      if (settings.values && !settings.values.some((v) => v === term)) because(`${pyRepr(term)} is not an allowed term.`);
    }
    return;
  }
  if (typeof value !== "number" || (settings.type === "integer" && !Number.isInteger(value))) {
    because(`${pyRepr(value)} is not ${settings.type === "integer" ? "an integer" : "a float"}`);
  }
  const n = value as number;
  if ((settings.min !== null && settings.min !== undefined && n < settings.min) || (settings.max !== null && settings.max !== undefined && n > settings.max)) {
    because(`${pyRepr(n)} is out of range [${settings.min ?? "None"}, ${settings.max ?? "None"}]`);
  }
}

/** Contract 3.7: each key against its property; unknown keys only with allow_extra_metadata. Null values skip the check. */
export function validateMetadata(schema: DatasetSchema, metadata: Record<string, unknown> | null | undefined): void {
  if (!metadata) return;
  for (const [name, value] of Object.entries(metadata)) {
    if (value === null) continue;
    const property = schema.metadataByName.get(name);
    if (!property) {
      if (!schema.dataset.allow_extra_metadata) {
        fail(`metadata is not valid: ${pyRepr(name)} metadata property does not exists for dataset ${pyRepr(schema.dataset.id)} and extra metadata is not allowed for this dataset`);
      }
      continue;
    }
    validateMetadataValue(property, value);
  }
}

// ---------------------------------------------------------------- vectors

export function validateVectors(schema: DatasetSchema, vectors: Record<string, number[] | null> | null | undefined): void {
  if (!vectors) return;
  for (const [name, value] of Object.entries(vectors)) {
    const settings = schema.vectorByName.get(name);
    if (!settings) fail(`record does not have valid vectors: vector with name=${name} does not exist for dataset_id=${schema.dataset.id}`);
    if (value === null) continue;
    if (value.length !== settings!.dimensions) fail(`record does not have valid vectors: vector must have ${settings!.dimensions} elements, got ${value.length} elements`);
  }
}

// ---------------------------------------------------------------- response and suggestion values

const optionValues = (options: OptionSetting[] | { value: number }[]): (string | number)[] => options.map((o) => o.value);

export interface ValueContext {
  /** "submitted" applies the submitted-only ranking rules; suggestions use "suggestion". */
  status: "submitted" | "draft" | "discarded" | "suggestion";
  /** The record's fields, for span bounds. */
  recordFields: Record<string, unknown> | null;
}

/** Validates one answer value for a question (contract 3.11), throwing RecordValueError with the reason. */
export function validateQuestionValue(question: QuestionDef, value: unknown, ctx: ValueContext): void {
  const s = question.settings;
  switch (s.type) {
    case "text":
      if (typeof value !== "string") fail(`text question expects a text value, found ${pyType(value)}`);
      if ((value as string).length === 0) fail("text question expects a non empty text value");
      return;
    case "label_selection": {
      const allowed = optionValues(s.options);
      if (!allowed.includes(value as string)) fail(`${pyRepr(value)} is not a valid label for label selection question.\nValid labels are: ${pyRepr(allowed)}`);
      return;
    }
    case "multi_label_selection": {
      if (!Array.isArray(value)) fail(`This MultiLabelSelection question expects a list of values, found ${pyType(value)}`);
      const list = value as unknown[];
      if (list.length === 0) fail("This MultiLabelSelection question expects a list of values, found empty list");
      if (new Set(list.map((v) => JSON.stringify(v))).size !== list.length) fail("multi label selection questions expect a list of unique values, but duplicates were found");
      const allowed = optionValues(s.options);
      const invalid = list.filter((v) => !allowed.includes(v as string));
      if (invalid.length > 0) fail(`${pyRepr(invalid)} are not valid labels for multi label selection question.\nValid labels are: ${pyRepr(allowed)}`);
      return;
    }
    case "rating": {
      const allowed = optionValues(s.options);
      if (typeof value !== "number" || !Number.isInteger(value) || !allowed.includes(value)) {
        fail(`${pyRepr(value)} is not a valid rating for rating question.\nValid ratings are: ${pyRepr(allowed)}`);
      }
      return;
    }
    case "ranking": return validateRanking(s.options, value, ctx);
    case "span": return validateSpan(question, s, value, ctx);
  }
}

function validateRanking(options: OptionSetting[], value: unknown, ctx: ValueContext): void {
  if (!Array.isArray(value)) fail(`This Ranking question expects a list of values, found ${pyType(value)}`);
  const list = value as unknown[];
  const allowed = optionValues(options);
  const values: unknown[] = [];
  for (const item of list) {
    if (!isPlainObject(item) || !("value" in item)) fail("ranking question expects a list of objects with 'value' and 'rank'");
    const entry = item as { value: unknown; rank?: unknown };
    if (entry.rank !== undefined && entry.rank !== null && (typeof entry.rank !== "number" || !Number.isInteger(entry.rank))) fail(`ranking question expects integer ranks, found ${pyRepr(entry.rank)}`);
    values.push(entry.value);
  }
  const invalid = values.filter((v) => !allowed.includes(v as string));
  if (invalid.length > 0) fail(`${pyRepr(invalid)} are not valid values for ranking question.\nValid values are: ${pyRepr(allowed)}`);
  if (new Set(values).size !== values.length) fail("ranking question expects a list of unique values, but duplicates were found");
  if (ctx.status === "submitted") {
    if (values.length !== allowed.length) fail(`ranking question expects a list containing ${allowed.length} values, found a list of ${values.length} values`);
    for (const item of list as { rank?: unknown }[]) {
      const rank = item.rank;
      if (typeof rank !== "number" || rank < 1 || rank > allowed.length) fail(`${pyRepr(rank ?? null)} are not valid ranks for ranking question.\nValid ranks are: ${pyRepr(allowed.map((_, i) => i + 1))}`);
    }
  }
}

function validateSpan(question: QuestionDef, s: Extract<QuestionDef["settings"], { type: "span" }>, value: unknown, ctx: ValueContext): void {
  if (!Array.isArray(value)) fail(`span question expects a list of values, found ${pyType(value)}`);
  const list = value as unknown[];
  if (list.length > 10000) fail("span question expects a list of at most 10000 values");
  const text = ctx.recordFields?.[s.field];
  if (typeof text !== "string") fail(`span question requires record to have field \`${s.field}\``);
  const length = (text as string).length;
  const allowed = optionValues(s.options);
  const spans: { start: number; end: number }[] = [];
  list.forEach((item) => {
    if (!isPlainObject(item) || typeof item.label !== "string" || typeof item.start !== "number" || typeof item.end !== "number"
      || !Number.isInteger(item.start) || !Number.isInteger(item.end)) {
      fail("span question expects a list of objects with string 'label' and integer 'start' and 'end'");
    }
    const span = item as { label: string; start: number; end: number };
    if (!allowed.includes(span.label)) fail(`undefined label ${pyRepr(span.label)} for span question.\nValid labels are: ${pyRepr(allowed)}`);
    if (span.start < 0) fail("span question response value `start` must have a value greater or equal than `0`");
    if (span.end < 1) fail("span question response value `end` must have a value greater or equal than `1`");
    if (span.start > length - 1) fail(`span question response value \`start\` must have a value lower than record field \`${s.field}\` length that is \`${length}\``);
    if (span.end > length) fail(`span question response value \`end\` must have a value lower or equal than record field \`${s.field}\` length that is \`${length}\``);
    if (span.end <= span.start) fail("span question response value `end` must have a value greater than `start`");
    spans.push(span);
  });
  if (!s.allow_overlapping) {
    const sorted = spans.map((sp, idx) => ({ ...sp, idx })).sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]!.start < sorted[i - 1]!.end) fail(`overlapping values found between spans at index idx=${sorted[i - 1]!.idx} and idx=${sorted[i]!.idx}`);
    }
  }
  void question;
}

/** Contract 3.11 response-level rules, then each value. `values` is `{question: {"value": V}}`. */
export function validateResponseValues(
  schema: DatasetSchema, status: "submitted" | "draft" | "discarded", values: Record<string, { value: unknown }> | null | undefined,
  recordFields: Record<string, unknown> | null,
): void {
  if (status === "submitted" && (!values || Object.keys(values).length === 0)) fail("missing response values for submitted response");
  const given = values ?? {};
  if (status === "submitted") {
    for (const question of schema.questions) {
      if (question.required && (given[question.name] === undefined || given[question.name] === null)) {
        fail(`missing response value for required question with name=${pyRepr(question.name)}`);
      }
    }
  }
  for (const [name, entry] of Object.entries(given)) {
    const question = schema.questionByName.get(name);
    if (!question) fail(`found response value for non configured question with name=${pyRepr(name)}`);
    if (entry === null) continue;
    if (!isPlainObject(entry) || !("value" in entry)) fail(`response value for question with name=${pyRepr(name)} must be an object with a 'value' key`);
    validateQuestionValue(question!, entry.value, { status, recordFields });
  }
}

/** Suggestion value and score (contract 3.12): same per-type shapes as responses, without the submitted-only ranking rules. */
export function validateSuggestionValue(question: QuestionDef, value: unknown, score: unknown, recordFields: Record<string, unknown> | null): void {
  validateQuestionValue(question, value, { status: "suggestion", recordFields });
  if (Array.isArray(score) && Array.isArray(value) && score.length !== value.length) {
    fail(`number of items on value and score attributes doesn't match`);
  }
  if (Array.isArray(score) && !Array.isArray(value)) fail("a list of scores is only allowed with a list of values");
}
