import {
  answerViolation,
  fieldValueViolation,
  metadataValueViolation,
  type AnswerRuleQuestion,
  type AnswerViolation,
  type FieldValueViolation,
  type MetadataValueViolation,
} from "@tessera/domain";
import type { DatasetSchema, FieldDef, MetadataPropertyDef, QuestionDef } from "./dataset-schema.js";

/**
 * Business validation of record fields, metadata, vectors, response values and suggestion values
 * against the dataset settings (contract 3.5-3.12). Each validator throws a ValueError-like
 * `RecordValueError` whose message is the text after "... because " in the bulk messages.
 */
export class RecordValueError extends Error {}

const fail = (message: string): never => {
  throw new RecordValueError(message);
};

/** Python-style repr, so messages read like the reference server's (`'x'`, `['a', 'b']`). */
export function pyRepr(value: unknown): string {
  if (typeof value === "string") return `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  if (typeof value === "object")
    return `{${Object.entries(value)
      .map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`)
      .join(", ")}}`;
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

/** The contract's wording (the reference server's ValueError texts) of a domain field value rule violation. */
export function fieldViolationMessage(name: string, v: FieldValueViolation): string {
  switch (v.kind) {
    case "field.wrongType":
      return `Wrong value found for field ${pyRepr(name)}. Expected ${pyRepr(v.expected)}, found ${pyRepr(pyType(v.value))}`;
    case "image.dataUrlTooLong":
      return `image field ${pyRepr(name)} data URL is too long, the maximum is ${v.max} characters`;
    case "image.badMimeType":
      return `image field ${pyRepr(name)} has an invalid data URL MIME type: ${pyRepr(v.mime)}`;
    case "image.urlTooLong":
      return `image field ${pyRepr(name)} URL is too long, the maximum is ${v.max} characters`;
    case "image.badUrl":
      return `image field ${pyRepr(name)} has an invalid URL: it must be an http(s) URL with a host and a path, or a data URL`;
    case "chat.tooManyMessages":
      return `chat field ${pyRepr(name)} has ${v.count} messages, the maximum is ${v.max}`;
    case "chat.badMessage":
      return `chat field ${pyRepr(name)} message at position ${v.position} must be an object with string 'role' and 'content'`;
    case "chat.badRole":
      return `chat field ${pyRepr(name)} message at position ${v.position} has an invalid role: 1 to ${v.max} characters without whitespace`;
    case "chat.contentTooLong":
      return `chat field ${pyRepr(name)} message at position ${v.position} content is longer than ${v.max} characters`;
  }
}

function validateFieldValue(field: FieldDef, value: unknown): void {
  const violation = fieldValueViolation(field.settings.type, value);
  if (violation) fail(fieldViolationMessage(field.name, violation));
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

/** The contract's wording of a domain metadata value rule violation (the text after "... failed because "). */
export function metadataViolationReason(v: MetadataValueViolation): string {
  switch (v.kind) {
    case "metadata.notANumber":
      return `${pyRepr(String(v.value))} is not a valid number`;
    case "terms.notATerm":
      return `${pyRepr(v.term)} is not a valid term`;
    case "terms.notAllowed":
      return `${pyRepr(v.term)} is not an allowed term.`;
    case "number.wrongType":
      return `${pyRepr(v.value)} is not ${v.expected === "integer" ? "an integer" : "a float"}`;
    case "number.outOfRange":
      return `${pyRepr(v.value)} is out of range [${v.min ?? "None"}, ${v.max ?? "None"}]`;
  }
}

function validateMetadataValue(property: MetadataPropertyDef, value: unknown): void {
  const violation = metadataValueViolation(property.settings, value);
  if (violation) {
    fail(
      `metadata is not valid: ${pyRepr(property.name)} metadata property validation failed because ${metadataViolationReason(violation)}`,
    );
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
        fail(
          `metadata is not valid: ${pyRepr(name)} metadata property does not exists for dataset ${pyRepr(schema.dataset.id)} and extra metadata is not allowed for this dataset`,
        );
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
    if (value.length !== settings!.dimensions)
      fail(`record does not have valid vectors: vector must have ${settings!.dimensions} elements, got ${value.length} elements`);
  }
}

// ---------------------------------------------------------------- response and suggestion values

export interface ValueContext {
  /** "submitted" applies the submitted-only ranking rules; suggestions use "suggestion". */
  status: "submitted" | "draft" | "discarded" | "suggestion";
  /** The record's fields, for span bounds. */
  recordFields: Record<string, unknown> | null;
}

/** What the domain's answer rules need of a stored question. */
export function answerRuleQuestion(question: QuestionDef): AnswerRuleQuestion {
  const s = question.settings;
  return {
    type: s.type,
    optionValues: s.type === "text" ? [] : s.options.map((o) => o.value),
    ...(s.type === "span" ? { allowOverlapping: Boolean(s.allow_overlapping), spanField: s.field } : {}),
  };
}

/** The contract's wording (the reference server's ValueError texts) of a domain answer rule violation. */
export function answerViolationMessage(v: AnswerViolation): string {
  switch (v.kind) {
    case "text.notText":
      return `text question expects a text value, found ${pyType(v.value)}`;
    case "text.empty":
      return "text question expects a non empty text value";
    case "label.notAnOption":
      return `${pyRepr(v.value)} is not a valid label for label selection question.\nValid labels are: ${pyRepr(v.allowed)}`;
    case "multiLabel.notList":
      return `This MultiLabelSelection question expects a list of values, found ${pyType(v.value)}`;
    case "multiLabel.empty":
      return "This MultiLabelSelection question expects a list of values, found empty list";
    case "multiLabel.duplicates":
      return "multi label selection questions expect a list of unique values, but duplicates were found";
    case "multiLabel.notOptions":
      return `${pyRepr(v.invalid)} are not valid labels for multi label selection question.\nValid labels are: ${pyRepr(v.allowed)}`;
    case "rating.notAnOption":
      return `${pyRepr(v.value)} is not a valid rating for rating question.\nValid ratings are: ${pyRepr(v.allowed)}`;
    case "ranking.notList":
      return `This Ranking question expects a list of values, found ${pyType(v.value)}`;
    case "ranking.badItem":
      return "ranking question expects a list of objects with 'value' and 'rank'";
    case "ranking.badRank":
      return `ranking question expects integer ranks, found ${pyRepr(v.rank)}`;
    case "ranking.notOptions":
      return `${pyRepr(v.invalid)} are not valid values for ranking question.\nValid values are: ${pyRepr(v.allowed)}`;
    case "ranking.duplicates":
      return "ranking question expects a list of unique values, but duplicates were found";
    case "ranking.incomplete":
      return `ranking question expects a list containing ${v.expected} values, found a list of ${v.found} values`;
    case "ranking.rankOutOfRange":
      return `${pyRepr(v.rank)} are not valid ranks for ranking question.\nValid ranks are: ${pyRepr(v.allowedRanks)}`;
    case "span.notList":
      return `span question expects a list of values, found ${pyType(v.value)}`;
    case "span.tooMany":
      return `span question expects a list of at most ${v.max} values`;
    case "span.noFieldText":
      return `span question requires record to have field \`${v.field}\``;
    case "span.badItem":
      return "span question expects a list of objects with string 'label' and integer 'start' and 'end'";
    case "span.unknownLabel":
      return `undefined label ${pyRepr(v.label)} for span question.\nValid labels are: ${pyRepr(v.allowed)}`;
    case "span.startNegative":
      return "span question response value `start` must have a value greater or equal than `0`";
    case "span.endTooSmall":
      return "span question response value `end` must have a value greater or equal than `1`";
    case "span.startBeyondText":
      return `span question response value \`start\` must have a value lower than record field \`${v.field}\` length that is \`${v.length}\``;
    case "span.endBeyondText":
      return `span question response value \`end\` must have a value lower or equal than record field \`${v.field}\` length that is \`${v.length}\``;
    case "span.endNotAfterStart":
      return "span question response value `end` must have a value greater than `start`";
    case "span.overlapping":
      return `overlapping values found between spans at index idx=${v.first} and idx=${v.second}`;
  }
}

/** Validates one answer value for a question (contract 3.11) with the domain's rules, throwing RecordValueError with the reason. */
export function validateQuestionValue(question: QuestionDef, value: unknown, ctx: ValueContext): void {
  const s = question.settings;
  const fieldText =
    s.type === "span" ? (typeof ctx.recordFields?.[s.field] === "string" ? (ctx.recordFields[s.field] as string) : null) : undefined;
  const violation = answerViolation(answerRuleQuestion(question), value, {
    status: ctx.status,
    ...(fieldText !== undefined ? { fieldText } : {}),
  });
  if (violation) fail(answerViolationMessage(violation));
}

/** Contract 3.11 response-level rules, then each value. `values` is `{question: {"value": V}}`. */
export function validateResponseValues(
  schema: DatasetSchema,
  status: "submitted" | "draft" | "discarded",
  values: Record<string, { value: unknown }> | null | undefined,
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
    if (!isPlainObject(entry) || !("value" in entry))
      fail(`response value for question with name=${pyRepr(name)} must be an object with a 'value' key`);
    validateQuestionValue(question!, entry.value, { status, recordFields });
  }
}

/** Suggestion value and score (contract 3.12): same per-type shapes as responses, without the submitted-only ranking rules. */
export function validateSuggestionValue(
  question: QuestionDef,
  value: unknown,
  score: unknown,
  recordFields: Record<string, unknown> | null,
): void {
  validateQuestionValue(question, value, { status: "suggestion", recordFields });
  if (Array.isArray(score) && Array.isArray(value) && score.length !== value.length) {
    fail(`number of items on value and score attributes doesn't match`);
  }
  if (Array.isArray(score) && !Array.isArray(value)) fail("a list of scores is only allowed with a list of values");
}
