/**
 * Which answer values fit a question (spec sections 3 and 4, contract 3.11-3.12), once for the
 * whole product: the server validates responses and suggestions with it (and words the violation
 * as the contract does), the web app's form decides with it whether an answer can be submitted.
 * Pure: a violation is data; wording belongs to whoever shows it.
 */
import type { QuestionType } from "../entities/question-type.js";

/** At most this many spans in one answer. */
export const SPAN_MAX_ITEMS = 10_000;

/** What the rules need to know of a question. */
export interface AnswerRuleQuestion {
  type: QuestionType;
  /** The option values (labels, ranking values, span labels, ratings); empty for text. */
  optionValues: readonly (string | number)[];
  /** span: whether spans may overlap. */
  allowOverlapping?: boolean;
  /** span: the name of the field the spans are in. */
  spanField?: string;
}

/**
 * How strictly to check: `submitted` requires a whole ranking with ranks 1..n; `draft`,
 * `discarded` and `suggestion` accept a partial ranking. `fieldText` is the span field's text:
 * `undefined` skips the bounds checks (a form that places spans itself), `null` means the record
 * has no such text (a violation).
 */
export interface AnswerRuleContext {
  status: "submitted" | "draft" | "discarded" | "suggestion";
  fieldText?: string | null;
}

export type AnswerViolation =
  | { kind: "text.notText"; value: unknown }
  | { kind: "text.empty" }
  | { kind: "label.notAnOption"; value: unknown; allowed: readonly (string | number)[] }
  | { kind: "multiLabel.notList"; value: unknown }
  | { kind: "multiLabel.empty" }
  | { kind: "multiLabel.duplicates" }
  | { kind: "multiLabel.notOptions"; invalid: unknown[]; allowed: readonly (string | number)[] }
  | { kind: "rating.notAnOption"; value: unknown; allowed: readonly (string | number)[] }
  | { kind: "ranking.notList"; value: unknown }
  | { kind: "ranking.badItem" }
  | { kind: "ranking.badRank"; rank: unknown }
  | { kind: "ranking.notOptions"; invalid: unknown[]; allowed: readonly (string | number)[] }
  | { kind: "ranking.duplicates" }
  | { kind: "ranking.incomplete"; expected: number; found: number }
  | { kind: "ranking.rankOutOfRange"; rank: unknown; allowedRanks: number[] }
  | { kind: "span.notList"; value: unknown }
  | { kind: "span.tooMany"; max: number }
  | { kind: "span.noFieldText"; field: string }
  | { kind: "span.badItem" }
  | { kind: "span.unknownLabel"; label: string; allowed: readonly (string | number)[] }
  | { kind: "span.startNegative" }
  | { kind: "span.endTooSmall" }
  | { kind: "span.startBeyondText"; field: string; length: number }
  | { kind: "span.endBeyondText"; field: string; length: number }
  | { kind: "span.endNotAfterStart" }
  | { kind: "span.overlapping"; first: number; second: number };

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isInteger = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/** The first rule that `value` breaks for `question`, or null when it fits. */
export function answerViolation(question: AnswerRuleQuestion, value: unknown, ctx: AnswerRuleContext): AnswerViolation | null {
  const allowed = question.optionValues;
  switch (question.type) {
    case "text":
      if (typeof value !== "string") return { kind: "text.notText", value };
      return value.trim().length === 0 ? { kind: "text.empty" } : null;
    case "label_selection":
      return allowed.includes(value as string) ? null : { kind: "label.notAnOption", value, allowed };
    case "rating":
      return isInteger(value) && allowed.includes(value) ? null : { kind: "rating.notAnOption", value, allowed };
    case "multi_label_selection": {
      if (!Array.isArray(value)) return { kind: "multiLabel.notList", value };
      if (value.length === 0) return { kind: "multiLabel.empty" };
      if (new Set(value.map((v) => JSON.stringify(v))).size !== value.length) return { kind: "multiLabel.duplicates" };
      const invalid = value.filter((v) => !allowed.includes(v as string));
      return invalid.length > 0 ? { kind: "multiLabel.notOptions", invalid, allowed } : null;
    }
    case "ranking":
      return rankingViolation(allowed, value, ctx);
    case "span":
      return spanViolation(question, value, ctx);
  }
}

function rankingViolation(allowed: readonly (string | number)[], value: unknown, ctx: AnswerRuleContext): AnswerViolation | null {
  if (!Array.isArray(value)) return { kind: "ranking.notList", value };
  const values: unknown[] = [];
  for (const item of value) {
    if (!isPlainObject(item) || !("value" in item)) return { kind: "ranking.badItem" };
    if (item.rank !== undefined && item.rank !== null && !isInteger(item.rank)) return { kind: "ranking.badRank", rank: item.rank };
    values.push(item.value);
  }
  const invalid = values.filter((v) => !allowed.includes(v as string));
  if (invalid.length > 0) return { kind: "ranking.notOptions", invalid, allowed };
  if (new Set(values).size !== values.length) return { kind: "ranking.duplicates" };
  if (ctx.status === "submitted") {
    if (values.length !== allowed.length) return { kind: "ranking.incomplete", expected: allowed.length, found: values.length };
    for (const item of value as { rank?: unknown }[]) {
      const rank = item.rank;
      if (!isInteger(rank) || rank < 1 || rank > allowed.length)
        return { kind: "ranking.rankOutOfRange", rank: rank ?? null, allowedRanks: allowed.map((_, i) => i + 1) };
    }
  }
  return null;
}

function spanViolation(question: AnswerRuleQuestion, value: unknown, ctx: AnswerRuleContext): AnswerViolation | null {
  if (!Array.isArray(value)) return { kind: "span.notList", value };
  if (value.length > SPAN_MAX_ITEMS) return { kind: "span.tooMany", max: SPAN_MAX_ITEMS };
  const field = question.spanField ?? "";
  if (ctx.fieldText === null || (ctx.fieldText !== undefined && typeof ctx.fieldText !== "string"))
    return { kind: "span.noFieldText", field };
  const length = ctx.fieldText === undefined ? Number.POSITIVE_INFINITY : ctx.fieldText.length;
  const spans: { start: number; end: number; index: number }[] = [];
  for (const [index, item] of value.entries()) {
    if (!isPlainObject(item) || typeof item.label !== "string" || !isInteger(item.start) || !isInteger(item.end))
      return { kind: "span.badItem" };
    if (!question.optionValues.includes(item.label))
      return { kind: "span.unknownLabel", label: item.label, allowed: question.optionValues };
    if (item.start < 0) return { kind: "span.startNegative" };
    if (item.end < 1) return { kind: "span.endTooSmall" };
    if (item.start > length - 1) return { kind: "span.startBeyondText", field, length };
    if (item.end > length) return { kind: "span.endBeyondText", field, length };
    if (item.end <= item.start) return { kind: "span.endNotAfterStart" };
    spans.push({ start: item.start, end: item.end, index });
  }
  if (!question.allowOverlapping) {
    const sorted = [...spans].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]!.start < sorted[i - 1]!.end) return { kind: "span.overlapping", first: sorted[i - 1]!.index, second: sorted[i]!.index };
    }
  }
  return null;
}

/** Whether a record with this many submitted responses is completed under the overlap distribution (spec section 3). */
export function recordStatusFor(submittedResponses: number, minSubmitted: number): "pending" | "completed" {
  return submittedResponses >= Math.max(1, minSubmitted) ? "completed" : "pending";
}

/** The distribution's `min_submitted` of a stored or sent distribution (at least 1; 1 when absent or not a number). */
export function minSubmittedOf(distribution: unknown): number {
  const value = isPlainObject(distribution) ? (distribution.min_submitted ?? distribution.minSubmitted) : undefined;
  return typeof value === "number" && Number.isFinite(value) && value >= 1 ? value : 1;
}
