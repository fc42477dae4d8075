/**
 * The rules of question settings as the HTTP contract states them (contract 3.6): option counts
 * per type, option value and text lengths, unique option values, visible_options bounds, rating
 * values and span colours. The server builds its request schemas from these constants and calls
 * these checks; the web app's dataset creation applies the stricter editor rules of spec section 5
 * on top (`validateQuestionOptions`, `QUESTION_TITLE_MAX`).
 */
import { isHslColor } from "../entities/color.js";
import type { QuestionType } from "../entities/question-type.js";

/** Options allowed per question type (contract 3.6); text has none. */
export const OPTION_COUNT_LIMITS = {
  label_selection: { min: 2, max: 500 },
  multi_label_selection: { min: 2, max: 500 },
  ranking: { min: 2, max: 50 },
  span: { min: 1, max: 500 },
  rating: { min: 2, max: 11 },
} as const satisfies { [type in Exclude<QuestionType, "text">]: { min: number; max: number } };

export const OPTION_VALUE_MAX_LENGTH = 200;
export const OPTION_TEXT_MAX_LENGTH = 500;
export const OPTION_DESCRIPTION_MAX_LENGTH = 1000;
/** Rating option values are integers in this range. */
export const RATING_VALUE_MIN = 0;
export const RATING_VALUE_MAX = 10;
/** `visible_options`, when set, is at least this and at most the number of options. */
export const VISIBLE_OPTIONS_MIN = 3;
/** Titles of fields, questions, metadata properties and vectors over the API (the editor's question title limit is 200). */
export const API_TITLE_MAX_LENGTH = 500;
export const API_DESCRIPTION_MAX_LENGTH = 1000;
export const SPAN_COLOR_MAX_LENGTH = 64;

export type QuestionSettingsViolation =
  | { kind: "options.tooFew"; min: number; found: number }
  | { kind: "options.tooMany"; max: number; found: number }
  | { kind: "options.duplicateValues"; duplicates: (string | number)[] }
  | { kind: "option.badValue"; index: number }
  | { kind: "option.badText"; index: number }
  | { kind: "option.badDescription"; index: number }
  | { kind: "option.badColor"; index: number }
  | { kind: "rating.badValue"; index: number }
  | { kind: "visibleOptions.tooSmall"; min: number }
  | { kind: "visibleOptions.overOptions"; count: number }
  | { kind: "span.noField" };

/** The option values that occur more than once, in first-seen order. */
export function duplicateOptionValues<T>(values: readonly T[]): T[] {
  const seen = new Set<T>();
  const duplicates = new Set<T>();
  for (const value of values) (seen.has(value) ? duplicates : seen).add(value);
  return [...duplicates];
}

/** `visible_options` against the option count, or null when it fits (null means "show all"). */
export function visibleOptionsViolation(visibleOptions: number | null | undefined, optionCount: number): QuestionSettingsViolation | null {
  if (visibleOptions === null || visibleOptions === undefined) return null;
  if (visibleOptions < VISIBLE_OPTIONS_MIN) return { kind: "visibleOptions.tooSmall", min: VISIBLE_OPTIONS_MIN };
  return visibleOptions > optionCount ? { kind: "visibleOptions.overOptions", count: optionCount } : null;
}

export interface QuestionSettingsInput {
  type: QuestionType;
  options?: readonly { value: unknown; text?: unknown; description?: unknown; color?: unknown }[];
  visible_options?: number | null;
  field?: unknown;
}

/** Every contract rule that `settings` breaks (empty when the settings are valid). */
export function questionSettingsViolations(settings: QuestionSettingsInput): QuestionSettingsViolation[] {
  if (settings.type === "text") return [];
  const violations: QuestionSettingsViolation[] = [];
  const options = settings.options ?? [];
  const limits = OPTION_COUNT_LIMITS[settings.type];
  if (options.length < limits.min) violations.push({ kind: "options.tooFew", min: limits.min, found: options.length });
  if (options.length > limits.max) violations.push({ kind: "options.tooMany", max: limits.max, found: options.length });
  options.forEach((option, index) => {
    if (settings.type === "rating") {
      const v = option.value;
      if (typeof v !== "number" || !Number.isInteger(v) || v < RATING_VALUE_MIN || v > RATING_VALUE_MAX)
        violations.push({ kind: "rating.badValue", index });
      return;
    }
    if (typeof option.value !== "string" || option.value.length < 1 || option.value.length > OPTION_VALUE_MAX_LENGTH)
      violations.push({ kind: "option.badValue", index });
    if (typeof option.text !== "string" || option.text.length < 1 || option.text.length > OPTION_TEXT_MAX_LENGTH)
      violations.push({ kind: "option.badText", index });
    const description = option.description;
    if (
      description !== undefined &&
      description !== null &&
      (typeof description !== "string" || description.length < 1 || description.length > OPTION_DESCRIPTION_MAX_LENGTH)
    ) {
      violations.push({ kind: "option.badDescription", index });
    }
    if (
      settings.type === "span" &&
      option.color !== undefined &&
      (typeof option.color !== "string" || option.color.length > SPAN_COLOR_MAX_LENGTH || !isHslColor(option.color))
    ) {
      violations.push({ kind: "option.badColor", index });
    }
  });
  const duplicates = duplicateOptionValues(options.map((o) => o.value as string | number));
  if (duplicates.length > 0) violations.push({ kind: "options.duplicateValues", duplicates });
  if (settings.type !== "rating" && settings.type !== "ranking") {
    const visible = visibleOptionsViolation(settings.visible_options, options.length);
    if (visible) violations.push(visible);
  }
  if (settings.type === "span" && (typeof settings.field !== "string" || settings.field.length === 0))
    violations.push({ kind: "span.noField" });
  return violations;
}
