import { ANSWERED_GAP, ANSWERED_RANGES, ANSWERED_SEEK_ROWS } from "./sqlite-text-answered.js";
import type { PhraseRowsKnown, ReadPool } from "./sqlite-read-pool.js";

/**
 * A plain word's best records deep in its score order (the SDK's `records(query=...)` at offset 2,560 asks for the best
 * 33,920 FTS rows, sqlite-text.ts rankedLimit): FTS5's `ORDER BY bm25 LIMIT k` scores every match with bm25() and sorts
 * them (1M records, a word in 17% of them: 370 ms of CPU), whatever k. Here the ranking extension's tessera_answered
 * (native/tessera_rank.c) reads the word's rows of every record of the range in C, on the two read threads at once (half
 * the range each), scores them as bm25() scores them (the word's row count given) and keeps each record's best row and the
 * `k` best records by (score, rowid), found by counting the records' few distinct scores (ansSelect; a heap of k cost ~40%
 * of a half's CPU), with no test of each row's record (read-statements.ts: the span's every seq a candidate); the two
 * halves' records are merged here in order. The records in that order are those of FTS5's rows in their order, each
 * record's first row (its best): the same pages.
 */
export interface DeepTop {
  /** The index's version both threads read (the caller adopts the rows only at its current version). */
  version: Buffer;
  /** The best rows of the `k` best records (fewer: all of the range's records that match), in order. */
  fr: Float64Array;
  bm: Float64Array;
  /** The range's records that match (the halves' counts summed), or null when a half did not count them. */
  records: number | null;
}

/** Two lists sorted by (bm, fr) merged, at most k rows. */
export function mergeByScore(a: { fr: Float64Array; bm: Float64Array }, b: { fr: Float64Array; bm: Float64Array }, k: number) {
  const n = Math.min(k, a.fr.length + b.fr.length);
  const fr = new Float64Array(n);
  const bm = new Float64Array(n);
  let i = 0;
  let j = 0;
  for (let o = 0; o < n; o++) {
    const fromA = j >= b.fr.length || (i < a.fr.length && (a.bm[i]! < b.bm[j]! || (a.bm[i] === b.bm[j] && a.fr[i]! < b.fr[j]!)));
    if (fromA) {
      fr[o] = a.fr[i]!;
      bm[o] = a.bm[i++]!;
    } else {
      fr[o] = b.fr[j]!;
      bm[o] = b.bm[j++]!;
    }
  }
  return { fr, bm };
}

/**
 * The `k` best records of a plain word (`"word"`) among the seqs `lo..hi`, as DeepTop, or null when the threads read two
 * index versions (a write between their reads) or a thread failed (no extension there): the caller ranks as before.
 */
export async function deepTop(
  pool: ReadPool,
  job: { expression: string; lo: number; hi: number; k: number; ranking: PhraseRowsKnown },
): Promise<DeepTop | null> {
  const { lo, hi } = job;
  const mid = pool.size > 1 && hi > lo ? lo + ((hi - lo + 1) >> 1) : hi + 1;
  // Each half as a span of seqs, not their list (~500K seqs a half at 1M records: ~20 ms of CPU to list, send and walk).
  const halves: [number, number][] =
    mid <= hi
      ? [
          [lo, mid - 1],
          [mid, hi],
        ]
      : [[lo, hi]];
  const answers = await Promise.all(
    halves.map((span) =>
      pool.readAnswered({
        read: {
          expression: job.expression,
          field: null,
          seqs: new Uint32Array(0),
          span,
          records: hi - lo + 1,
          scoring: "word",
          members: true,
          gap: ANSWERED_GAP,
          seekRows: ANSWERED_SEEK_ROWS,
          maxRanges: ANSWERED_RANGES,
          // One window (width 0): the records by (score, rowid) alone.
          top: { k: job.k, lo, width: 0, generation: 0, lengthsKept: false },
        },
        ranking: job.ranking,
      }),
    ),
  ).catch(() => null);
  if (!answers || answers.some((a) => !a.version.equals(answers[0]!.version))) return null;
  const merged = answers.length === 1 ? answers[0]! : mergeByScore(answers[0]!, answers[1]!, job.k);
  const records = answers.every((a) => a.records !== null) ? answers.reduce((n, a) => n + a.records!, 0) : null;
  return { version: answers[0]!.version, fr: merged.fr, bm: merged.bm, records };
}
