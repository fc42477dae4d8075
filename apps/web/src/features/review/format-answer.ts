import type { AnswerValue, QuestionType, RankingItem, SpanItem } from "@tessera/domain";

/** A response value as one line of text for the side-by-side table (spans quote their text when the field is known). */
export function formatAnswer(type: QuestionType, value: AnswerValue | undefined, text?: string): string | null {
  if (value === undefined || value === null) return null;
  switch (type) {
    case "multi_label_selection":
      return (value as (string | number)[]).map(String).join(", ");
    case "ranking":
      return [...(value as RankingItem[])]
        .filter((i) => i.rank !== null)
        .sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0))
        .map((i) => String(i.value))
        .join(" > ");
    case "span":
      return [...(value as SpanItem[])]
        .sort((a, b) => a.start - b.start)
        .map((s) => (text !== undefined ? `${text.slice(s.start, s.end)} (${s.label})` : `${s.label} ${s.start}–${s.end}`))
        .join("; ");
    default:
      return String(value);
  }
}
