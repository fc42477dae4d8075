import type SQLite from "better-sqlite3";
import { answeredStatuses } from "./answered-filter.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { answeredSetsOf } from "./sqlite-answered.js";
import { ANSWERED_START_MAX, needsResponse } from "./sqlite-candidates.js";
import { RECORD_STATUSES } from "./sqlite-sql.js";
import { recordStatusesOf } from "./sqlite-status.js";

/** A text search's candidates: the records one of its filters lets through (sorted seqs), and the filters left to test on them. */
export interface TextCandidates {
  seqs: Uint32Array;
  rest: SearchFilter[];
}

/**
 * The records a text search starts from when one of its filters passes few records of the dataset (issues 25 and 31),
 * from memory: a response status without `pending` (Submitted, Draft, Discarded: the caller's answered records, or
 * anyone's on the admin search, sqlite-answered.ts), a response value (the records with any response of the caller or of
 * anyone), a record status without `pending` (the completed records, sqlite-status.ts). The filter that gave them is
 * left out of `rest` when they are exactly the records it passes. The text's rows are then read for these records only
 * (sqlite-text-answered.ts) instead of testing the filters on the text's matches: at 1M records with 3,364 answered
 * records, an admin's word + response value tested 5K-100K matches in SQL (1,251 ms p95), word + completed and an
 * admin's word + submitted ranked the text's matches until enough of them passed (133 / 215 ms). Null when no filter
 * passes at most `max` records: the text's matches are then the shorter list. Synchronous: call it on the connection.
 */
export function textCandidatesOf(
  raw: SQLite.Database,
  query: SearchQuery,
  max = ANSWERED_START_MAX,
  /**
   * Anyone's answered records (the admin search) are read from every response: not beyond this many in the instance
   * (/tmp/sub-1m, 354K responses: 1.6 s per read, again after any answer changes; their records would be more than
   * `max` anyway).
   */
  responsesMax = 4 * max,
): TextCandidates | null {
  const tooMany = () =>
    query.userId === null && ((raw.prepare("SELECT coalesce(max(rowid), 0) FROM responses").pluck().get() as number) ?? 0) > responsesMax;
  const answered = answeredStatuses(query.filters);
  if (answered && tooMany()) return null;
  if (answered) {
    const seqs = answeredSetsOf(raw).seqsOf(query.datasetId, query.userId, answered);
    // The first response status filter without `pending` is the one whose records these are.
    const exact = query.filters.find((f) => answeredStatuses([f]) !== null);
    return seqs.length > max ? null : { seqs, rest: query.filters.filter((f) => f !== exact) };
  }
  if (query.filters.some(needsResponse)) {
    if (tooMany()) return null;
    const seqs = answeredSetsOf(raw).seqsOf(query.datasetId, query.userId, null);
    return seqs.length > max ? null : { seqs, rest: query.filters };
  }
  const byStatus = query.filters.find(
    (f) => f.type === "terms" && f.scope.entity === "record" && f.scope.property === "status" && !f.values.includes("pending"),
  );
  if (byStatus && byStatus.type === "terms") {
    // codes[c] = 1 for the statuses the filter keeps (code = 1 + index in RECORD_STATUSES; 0: no record).
    const codes = Uint8Array.from({ length: RECORD_STATUSES.length + 1 }, (_, c) =>
      c > 0 && byStatus.values.includes(RECORD_STATUSES[c - 1]!) ? 1 : 0,
    );
    const seqs = recordStatusesOf(raw).seqsWith(query.datasetId, codes, max);
    return seqs && { seqs, rest: query.filters.filter((f) => f !== byStatus) };
  }
  return null;
}
