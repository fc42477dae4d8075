import { z } from "zod";
import { API_DESCRIPTION_MAX_LENGTH, API_TITLE_MAX_LENGTH } from "@tessera/domain";
import { validationError } from "../http/errors.js";

/** Name rule of questions and metadata properties (contract 3.6, 3.7). */
export const NAME_REGEX = /^(?=.*[a-z0-9])[a-z0-9_-]+$/;

/** The longest name of a dataset, field, question, metadata property or vector settings. */
export const MAX_NAME_LENGTH = 200;

/**
 * Every user-chosen name (datasets, fields, questions, metadata properties, vector settings; issue
 * 28): 1-200 characters, no control characters (they hide in the UI and in exports), no leading or
 * trailing whitespace (" lead" and "lead" would look the same). 422 legacy ValidationError otherwise.
 */
export const nameSchema = z
  .string()
  .min(1)
  .max(MAX_NAME_LENGTH)
  .regex(/^\P{Cc}*$/u, { message: "String should not contain control characters" })
  .regex(/^(?!\s)[\s\S]*(?<!\s)$/, { message: "String should not start or end with whitespace" });

/**
 * Workspace names as the Argilla 2.x server checks them (`WORKSPACE_NAME_REGEX`, its
 * `ES_INDEX_REGEX_PATTERN`): lower-case letters, digits, '-' and '_', not starting with '-' or '_'.
 */
export const WORKSPACE_NAME_REGEX = /^[a-z0-9][a-z0-9-_]*$/;
export const workspaceNameSchema = z
  .string()
  .min(1)
  .max(MAX_NAME_LENGTH)
  .regex(WORKSPACE_NAME_REGEX, { message: `String should match pattern '${WORKSPACE_NAME_REGEX.source}'` });
export const strictNameSchema = nameSchema.regex(NAME_REGEX, { message: `String should match pattern '${NAME_REGEX.source}'` });
export const titleSchema = z.string().min(1).max(API_TITLE_MAX_LENGTH);
export const descriptionSchema = z.string().min(1).max(API_DESCRIPTION_MAX_LENGTH);

/**
 * PATCH bodies: the contract's non-nullable keys reject an explicit `null` with a 422 legacy ValidationError
 * "The following keys must have non-null values: a, b".
 */
export function rejectNullKeys(body: unknown, keys: readonly string[]): void {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return;
  const record = body as Record<string, unknown>;
  const nullKeys = keys.filter((key) => key in record && record[key] === null);
  if (nullKeys.length > 0) {
    throw validationError([
      { type: "value_error", loc: ["body"], msg: `The following keys must have non-null values: ${nullKeys.join(", ")}` },
    ]);
  }
}

/** Python-style set repr used in duplicate messages, e.g. `{'a', 'b'}`. */
export const pySet = (values: readonly unknown[]): string =>
  `{${values.map((v) => (typeof v === "string" ? `'${v}'` : String(v))).join(", ")}}`;

/** Python-style list repr, e.g. `['a', 'b']`. */
export const pyList = (values: readonly string[]): string => `[${values.map((v) => `'${v}'`).join(", ")}]`;
