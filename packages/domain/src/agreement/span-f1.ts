import type { SpanItem } from "../entities/answer.js";

/** Matched and total counts of a span comparison; F1 = 2 * matched / total (Dice). */
export interface SpanTally {
  matched: number;
  total: number;
}

/** Exact spans: the number of (label, start, end) triples both annotators marked, and both annotators' span counts. */
export function exactSpanTally(a: readonly SpanItem[], b: readonly SpanItem[]): SpanTally {
  const key = (s: SpanItem) => `${s.start}:${s.end}:${s.label}`;
  const right = new Map<string, number>();
  for (const s of b) right.set(key(s), (right.get(key(s)) ?? 0) + 1);
  let matched = 0;
  for (const s of a) {
    const left = right.get(key(s)) ?? 0;
    if (left > 0) {
      matched++;
      right.set(key(s), left - 1);
    }
  }
  return { matched, total: a.length + b.length };
}

/** Token offsets of a text: maximal runs of non-whitespace characters, as [start, end). */
export function tokenize(text: string): [number, number][] {
  const tokens: [number, number][] = [];
  for (const match of text.matchAll(/\S+/gu)) tokens.push([match.index, match.index + match[0].length]);
  return tokens;
}

/** The (token index, label) pairs a list of spans covers: a token is covered when a span overlaps any of its characters. */
function tokenLabels(spans: readonly SpanItem[], tokens: readonly [number, number][]): Set<string> {
  const out = new Set<string>();
  for (const s of spans) {
    for (let i = 0; i < tokens.length; i++) {
      const [start, end] = tokens[i]!;
      if (start < s.end && s.start < end) out.add(`${i}:${s.label}`);
    }
  }
  return out;
}

/** Token overlap: spans compared as the labelled tokens they cover, so a span off by a character or a word still counts partly. */
export function tokenSpanTally(a: readonly SpanItem[], b: readonly SpanItem[], tokens: readonly [number, number][]): SpanTally {
  const left = tokenLabels(a, tokens);
  const right = tokenLabels(b, tokens);
  let matched = 0;
  for (const t of left) if (right.has(t)) matched++;
  return { matched, total: left.size + right.size };
}

/** F1 of summed tallies (micro average); null when neither side marked anything. */
export function f1Of(tally: SpanTally): number | null {
  return tally.total === 0 ? null : (2 * tally.matched) / tally.total;
}
