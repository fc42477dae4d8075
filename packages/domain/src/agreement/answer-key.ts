import type { AnswerValue, RankingItem, SpanItem } from "../entities/answer.js";
import type { QuestionType } from "../entities/question-type.js";

/**
 * A canonical string for an answer, so that equal answers have equal keys whatever their order:
 * multi-label values sorted, spans sorted by (start, end, label), rankings as value -> rank sorted
 * by value, text trimmed. Two answers "agree" exactly when their keys are equal.
 */
export function answerKey(type: QuestionType, value: AnswerValue): string {
  switch (type) {
    case "multi_label_selection":
      return JSON.stringify([...(value as (string | number)[])].map(String).sort());
    case "span":
      return JSON.stringify(
        [...(value as SpanItem[])]
          .map((s) => [s.start, s.end, s.label] as const)
          .sort((a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0)),
      );
    case "ranking":
      return JSON.stringify(
        [...(value as RankingItem[])]
          .map((i) => [String(i.value), i.rank] as const)
          .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
      );
    case "text":
      return `s${String(value).trim()}`;
    default:
      // label and rating: one scalar; the type prefix keeps 1 and "1" apart
      return typeof value === "number" ? `n${value}` : `s${String(value)}`;
  }
}

/** Whether a value is an answer worth comparing (a non-empty text, a chosen label, some labels, a ranking). */
export function isGivenAnswer(type: QuestionType, value: AnswerValue | null | undefined): value is AnswerValue {
  if (value === null || value === undefined) return false;
  switch (type) {
    case "text":
      return typeof value === "string" && value.trim() !== "";
    case "multi_label_selection":
      return Array.isArray(value) && value.length > 0;
    case "ranking":
      return Array.isArray(value) && value.length > 0;
    case "span":
      return Array.isArray(value);
    default:
      return typeof value === "string" || typeof value === "number";
  }
}
