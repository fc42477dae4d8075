import type { AnswerValue, AnswerValues, RankingItem, SpanItem } from "@tessera/domain";

const isSpan = (v: unknown): v is SpanItem => typeof v === "object" && v !== null && "start" in v && "label" in v;
const isRank = (v: unknown): v is RankingItem => typeof v === "object" && v !== null && "rank" in v && "value" in v;

/** One answer as a short text: labels joined, ranks in order, spans as label [start-end]. */
export function answerText(value: AnswerValue): string {
  if (!Array.isArray(value)) return String(value);
  return (value as unknown[])
    .map((item) => {
      if (isSpan(item)) return `${item.label} [${item.start}-${item.end}]`;
      if (isRank(item)) return `${item.rank ?? "-"}. ${item.value}`;
      return String(item);
    })
    .join(", ");
}

/** An answer's values as (question name, text) rows, for both sides of a conflict (the union of their questions). */
export function answerRows(mine: AnswerValues, theirs: AnswerValues | null): Array<{ question: string; mine: string; theirs: string }> {
  const names = [...new Set([...Object.keys(mine), ...Object.keys(theirs ?? {})])];
  return names.map((question) => ({
    question,
    mine: mine[question] === undefined ? "" : answerText(mine[question]!),
    theirs: theirs?.[question] === undefined ? "" : answerText(theirs[question]!),
  }));
}
