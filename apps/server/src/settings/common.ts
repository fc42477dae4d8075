import { z } from "zod";
import { API_DESCRIPTION_MAX_LENGTH, API_TITLE_MAX_LENGTH } from "@tessera/domain";
import { validationError } from "../http/errors.js";

/** Name rule of questions and metadata properties (contract 3.6, 3.7). */
export const NAME_REGEX = /^(?=.*[a-z0-9])[a-z0-9_-]+$/;

export const nameSchema = z.string().min(1).max(200);
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
    throw validationError([{ type: "value_error", loc: ["body"], msg: `The following keys must have non-null values: ${nullKeys.join(", ")}` }]);
  }
}

/** Python-style set repr used in duplicate messages, e.g. `{'a', 'b'}`. */
export const pySet = (values: readonly unknown[]): string => `{${values.map((v) => (typeof v === "string" ? `'${v}'` : String(v))).join(", ")}}`;

/** Python-style list repr, e.g. `['a', 'b']`. */
export const pyList = (values: readonly string[]): string => `[${values.map((v) => `'${v}'`).join(", ")}]`;
