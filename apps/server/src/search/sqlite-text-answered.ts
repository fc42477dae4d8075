import type SQLite from "better-sqlite3";
import { ANSWERED_MAX } from "./answered-filter.js";

/** An admin's answered records are read from every response (no index by status): only while there are few. */
const ADMIN_RESPONSES_MAX = 64 * ANSWERED_MAX;

/**
 * The seqs of the dataset's records answered with one of `statuses` by anyone (an admin's search; a user's come from
 * sqlite-answered.ts), ascending, or null when there are more than ANSWERED_MAX (or too many responses to read).
 */
export function answeredSeqs(raw: SQLite.Database, datasetId: string, statuses: string[]): number[] | null {
  const marks = statuses.map(() => "?").join(", ");
  const responses = (raw.prepare("SELECT coalesce(max(rowid), 0) FROM responses").pluck().get() as number) ?? 0;
  if (responses > ADMIN_RESPONSES_MAX) return null;
  const seqs = raw
    .prepare(
      `SELECT DISTINCT r.seq FROM responses s CROSS JOIN records r ON r.id = s.record_id WHERE s.status IN (${marks}) AND r.dataset_id = ? LIMIT ?`,
    )
    .pluck()
    .all(...statuses, datasetId, ANSWERED_MAX + 1) as number[];
  if (seqs.length > ANSWERED_MAX) return null;
  return seqs.sort((a, b) => a - b);
}

/**
 * Candidates further apart than this many records are read in separate FTS5 ranges (answeredRanges): a range's FTS5
 * filter seeks its first row (tens of µs), about what reading ~256 records' matching rows of a common word costs.
 */
export const ANSWERED_GAP = 256;
/** At most this many ranges per statement (the gap doubles until they are few enough). */
export const ANSWERED_RANGES = 1024;

/**
 * The ranges of seqs (first, last) FTS5 reads for these candidates (sorted, at least one): the candidates' runs, two
 * runs at most `gap` seqs apart merged, the gap doubled until there are at most `max` ranges.
 */
export function answeredRanges(seqs: ArrayLike<number>, gap: number, max: number): [number, number][] {
  for (let g = Math.max(1, gap); ; g *= 2) {
    const out: [number, number][] = [];
    let first = seqs[0]!;
    let last = first;
    for (let i = 1; i < seqs.length; i++) {
      const seq = seqs[i]!;
      if (seq - last > g) {
        out.push([first, last]);
        first = seq;
      }
      last = seq;
    }
    out.push([first, last]);
    if (out.length <= max) return out;
  }
}

/** The best FTS row (lowest bm25, then rowid) of each record among FTS rows (rowid, bm25). */
export function bestRows(rows: Iterable<[number, number]>): Map<number, { fr: number; bm: number }> {
  const best = new Map<number, { fr: number; bm: number }>();
  for (const [fr, bm] of rows) {
    const seq = Math.floor(fr / 1024);
    const b = best.get(seq);
    if (!b || bm < b.bm || (bm === b.bm && fr < b.fr)) best.set(seq, { fr, bm });
  }
  return best;
}
