import type SQLite from "better-sqlite3";
import type { SearchFilter } from "./search-port.js";

/**
 * A text search of answered records only (the annotation page's Submitted, Discarded and Draft views:
 * a response status filter without `pending`), issue 31. The other paths start from the text's
 * matches: at 1M records a common word's bounded total walked every match through `records` and
 * `responses` to find the caller's few answered records (seconds), and its page grew through the
 * whole ranking. Here the records come from the responses instead: the answered records (the
 * caller's, or anyone's for an admin) with those statuses, when there are at most ANSWERED_MAX, then
 * the query's filters on them, then FTS5's rows and scores of the passing ones in one statement (bm25
 * only for them); the total is exact and the page in the same order as the other paths give.
 */
export const ANSWERED_MAX = 2_000;
/** An admin's answered records are read from every response (no index by status): only while there are few. */
const ADMIN_RESPONSES_MAX = 64 * ANSWERED_MAX;

/** The statuses of a response status filter that only answered records pass (no `pending`), else null. */
export function answeredStatuses(filters: SearchFilter[]): string[] | null {
  for (const f of filters)
    if (f.type === "terms" && f.scope.entity === "response_status" && f.values.length > 0 && !f.values.includes("pending"))
      return f.values.map(String);
  return null;
}

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
