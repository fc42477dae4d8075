import type { AnswerValue, OptionValue, SpanItem } from "../entities/answer.js";
import type { QuestionType } from "../entities/question-type.js";
import { answerKey, isGivenAnswer } from "./answer-key.js";

/**
 * The majority answer of a record's submitted answers to one question, to prefill the reviewer's
 * form; undefined when there is no majority (a tie, or no answers).
 * - multi-label: the labels chosen by more than half of the annotators (undefined when none is);
 * - span: the spans (label, start, end) marked by more than half of the annotators (undefined when none is);
 * - other types: the most frequent answer (canonical equality: text trimmed, rankings by value),
 *   undefined when two or more answers share the highest count.
 */
export function majorityAnswer(type: QuestionType, values: readonly (AnswerValue | null | undefined)[]): AnswerValue | undefined {
  const given = values.filter((v): v is AnswerValue => isGivenAnswer(type, v));
  if (given.length === 0) return undefined;
  const half = given.length / 2;
  if (type === "multi_label_selection") {
    const counts = new Map<string, { value: OptionValue; count: number }>();
    for (const labels of given as OptionValue[][]) {
      for (const label of new Set(labels)) {
        const entry = counts.get(String(label)) ?? { value: label, count: 0 };
        entry.count++;
        counts.set(String(label), entry);
      }
    }
    const chosen = [...counts.values()].filter((c) => c.count > half).map((c) => c.value);
    return chosen.length > 0 ? chosen : undefined;
  }
  if (type === "span") {
    const counts = new Map<string, { span: SpanItem; count: number }>();
    for (const spans of given as SpanItem[][]) {
      const seen = new Set<string>();
      for (const span of spans) {
        const key = `${span.start}:${span.end}:${span.label}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const entry = counts.get(key) ?? { span: { start: span.start, end: span.end, label: span.label }, count: 0 };
        entry.count++;
        counts.set(key, entry);
      }
    }
    const chosen = [...counts.values()]
      .filter((c) => c.count > half)
      .map((c) => c.span)
      .sort((a, b) => a.start - b.start || a.end - b.end);
    return chosen.length > 0 ? chosen : undefined;
  }
  const counts = new Map<string, { value: AnswerValue; count: number }>();
  for (const value of given) {
    const key = answerKey(type, value);
    const entry = counts.get(key) ?? { value, count: 0 };
    entry.count++;
    counts.set(key, entry);
  }
  const ranked = [...counts.values()].sort((a, b) => b.count - a.count);
  if (ranked.length > 1 && ranked[0]!.count === ranked[1]!.count) return undefined;
  return ranked[0]!.value;
}
