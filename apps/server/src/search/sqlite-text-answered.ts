import type SQLite from "better-sqlite3";
import { ANSWERED_MAX } from "./answered-filter.js";

/** An admin's answered records are read from every response (no index by status): only while there are few. */
const ADMIN_RESPONSES_MAX = 64 * ANSWERED_MAX;

/**
 * The seqs of the dataset's records answered with one of `statuses` (by `userId`, or by anyone when
 * null), ascending, or null when there are more than ANSWERED_MAX (or, for anyone, too many responses to read).
 */
export function answeredSeqs(raw: SQLite.Database, datasetId: string, userId: string | null, statuses: string[]): number[] | null {
  const marks = statuses.map(() => "?").join(", ");
  let seqs: number[];
  if (userId !== null)
    seqs = raw
      .prepare(
        `SELECT r.seq FROM responses s CROSS JOIN records r ON r.id = s.record_id WHERE s.user_id = ? AND s.status IN (${marks}) AND r.dataset_id = ? LIMIT ?`,
      )
      .pluck()
      .all(userId, ...statuses, datasetId, ANSWERED_MAX + 1) as number[];
  else {
    const responses = (raw.prepare("SELECT coalesce(max(rowid), 0) FROM responses").pluck().get() as number) ?? 0;
    if (responses > ADMIN_RESPONSES_MAX) return null;
    seqs = raw
      .prepare(
        `SELECT DISTINCT r.seq FROM responses s CROSS JOIN records r ON r.id = s.record_id WHERE s.status IN (${marks}) AND r.dataset_id = ? LIMIT ?`,
      )
      .pluck()
      .all(...statuses, datasetId, ANSWERED_MAX + 1) as number[];
  }
  if (seqs.length > ANSWERED_MAX) return null;
  return seqs.sort((a, b) => a - b);
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
