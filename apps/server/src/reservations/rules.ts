import { sql, type RawBuilder } from "kysely";

/**
 * The queue rule in SQL (portable: the same text on SQLite and PostgreSQL). For a record `r` of the
 * dataset and an annotator U at instant `at` (ISO text, compared as text: every reservation time is
 * written by `new Date().toISOString()`):
 * - a reservation is live while `expires_at > at`;
 * - the record's takers are its submitted answers plus the live reservations of other annotators
 *   who have not submitted it (a submitted answer replaces its taker's reservation, never twice);
 * - U may take it when it is pending, U has not answered it, and its takers are fewer than
 *   `min_submitted`; U's own live reservations stay U's whatever the others do.
 */
/** `r` (an alias of records) is pending and not answered by U (the plain pending queue of the web app). */
export const inPendingQueue = (userId: string) =>
  sql`r.status = 'pending' AND NOT EXISTS (SELECT 1 FROM responses a WHERE a.record_id = r.id AND a.user_id = ${userId})`;

/** U holds a live reservation of `r`. */
export const heldBy = (userId: string, at: string) =>
  sql`EXISTS (SELECT 1 FROM record_reservations m WHERE m.record_id = r.id AND m.user_id = ${userId} AND m.expires_at > ${at})`;

/**
 * The records at capacity for U: records with live reservations of others whose takers reach
 * `min_submitted`, one row per (record, holder who has not submitted it). A pending record has
 * fewer submitted answers than min_submitted (its status says so), so only records with live
 * reservations of others can be full: this is computed once per take over the dataset's live
 * reservations instead of counting takers for every record a scan passes. The holders of a record
 * are counted by a window over its live reservations (one pass), its submitted answers once per
 * reservation row. U's own reservations
 * never count (takers are others), so U's take does not change the set.
 */
export const fullFor = (datasetId: string, userId: string, minSubmitted: number, at: string) =>
  sql`SELECT w.record_id AS record_id, w.user_id AS user_id FROM (
      SELECT f.record_id, f.user_id, count(*) OVER (PARTITION BY f.record_id) AS holders FROM record_reservations f
      WHERE f.dataset_id = ${datasetId} AND f.user_id <> ${userId} AND f.expires_at > ${at}
        AND NOT EXISTS (SELECT 1 FROM responses fs WHERE fs.record_id = f.record_id AND fs.user_id = f.user_id AND fs.status = 'submitted')) w
    WHERE w.holders + (SELECT count(*) FROM responses s WHERE s.record_id = w.record_id AND s.status = 'submitted') >= ${minSubmitted}`;

/**
 * Where a statement reads the full set from: `fullFor` as a subquery (PostgreSQL, where each
 * statement must see what concurrent takers committed), or the rows the take already read in the
 * same SQLite transaction: the distinct records, passed as a JSON array of ids, and the
 * (record, holder) pairs, which only the teammates count needs (counted in JS).
 */
export type FullRows = { rows: [string, string][]; records: string[] };
export type FullSet = { query: RawBuilder<unknown> } | FullRows;
export const fullSetOf = (rows: [string, string][]): FullRows => ({ rows, records: [...new Set(rows.map(([record]) => record))] });
const fullRecords = (full: FullSet) =>
  "query" in full ? sql`SELECT x.record_id FROM (${full.query}) x` : sql`SELECT value FROM json_each(${JSON.stringify(full.records)})`;

/** `r` is in U's queue, not yet U's, and free for U to take (not in the full set). */
export const freeFor = (userId: string, at: string, full: FullSet) =>
  sql`${inPendingQueue(userId)} AND NOT ${heldBy(userId, at)} AND r.id NOT IN (${fullRecords(full)})`;

/**
 * PostgreSQL: `r` (looked up by id) is of the dataset, written so that no index on the dataset can
 * serve it: the lookup then always goes by the id index. Until a new dataset's import is analysed
 * (db/planner-statistics.ts, a second after the import), the planner estimates one record for the
 * dataset and looked each id up by scanning the dataset's pending records instead (30K per answer of
 * the caller: seconds per take for a team's first takes).
 */
export const byIdOnly = (datasetId: string) => sql`r.dataset_id || '' = ${datasetId}`;

/**
 * The pending records of the dataset that U answered: U's answers, each record looked up by id.
 * On PostgreSQL `OFFSET 0` keeps the lookup a correlated subquery (SQLite's nested loop is already
 * this), whose planner otherwise joined U's few answers with the dataset's records by merging them
 * along the records' id index (reading the records up to U's largest id: 1.3 ms alone at 30K
 * records, growing with the dataset), and `byIdOnly` keeps it on the id index.
 */
const answeredBy = (
  datasetId: string,
  userId: string,
  postgres: boolean,
) => sql`(SELECT count(*) FROM responses s WHERE s.user_id = ${userId}
      AND EXISTS (SELECT 1 FROM records r WHERE r.id = s.record_id AND ${postgres ? byIdOnly(datasetId) : sql`r.dataset_id = ${datasetId}`}
        AND r.status = 'pending'${postgres ? sql` OFFSET 0` : sql``}))`;

/** `r` (of the full set) is out of U's reach: in U's queue, not U's own (others hold the places left). */
const outOfReach = (datasetId: string, userId: string, at: string) =>
  sql`r.dataset_id = ${datasetId} AND ${inPendingQueue(userId)} AND NOT ${heldBy(userId, at)}`;

/**
 * SQLite: of the full set's records (read as rows just before), those out of U's reach, one row each: what
 * the queue's total needs beside the dataset's counters and the pending records U answered (the
 * holders are counted from the rows). CROSS JOIN: the set's few records are looked up one by one,
 * instead of a scan of the dataset's pending records against the set (which an IN list made).
 */
export const queueOutOfReachAmong = (datasetId: string, userId: string, at: string, records: string[]) =>
  sql`SELECT r.id AS id FROM json_each(${JSON.stringify(records)}) j CROSS JOIN records r WHERE r.id = j.value AND ${outOfReach(datasetId, userId, at)}`;
export const answeredPendingBy = (datasetId: string, userId: string) => sql`SELECT ${answeredBy(datasetId, userId, false)} AS answered`;

/**
 * PostgreSQL: what the queue's totals need beside the dataset's counters, in one statement: the
 * pending records U answered (on every row; one row with null record when the full set is empty),
 * and the full set's (record, holder) rows, each with whether the record is out of U's reach. The
 * set's records are looked up one by one by id (a correlated subquery, kept one by `OFFSET 0`; the
 * set is a few hundred rows at most), whatever the planner's statistics say: a join was hashed
 * against a scan of every record of the table (13 ms alone at 30K; seconds for every take while a
 * new dataset's import was not analysed yet), and `= ANY` of an array computed in the statement
 * tested every pending record (1.5 s).
 */
export const postgresQueueTotals = (datasetId: string, userId: string, minSubmitted: number, at: string) =>
  sql`SELECT a.answered, x.record_id, x.user_id, x.out_of_reach FROM (SELECT ${answeredBy(datasetId, userId, true)} AS answered) a
    LEFT JOIN LATERAL (SELECT w.record_id, w.user_id, o.out_of_reach FROM (${fullFor(datasetId, userId, minSubmitted, at)}) w
      CROSS JOIN LATERAL (SELECT (${outOfReach(datasetId, userId, at)}) AS out_of_reach FROM records r WHERE r.id = w.record_id OFFSET 0) o) x ON true`;

/**
 * U's live reservations of the dataset, with whether each record is still in U's pending queue and
 * whether U submitted it. SQLite reads them by (dataset, user), not by the dataset's live
 * reservations of every annotator; PostgreSQL looks each record up by id only (`byIdOnly`).
 */
export const heldByCaller = (datasetId: string, userId: string, at: string, postgres: boolean) =>
  sql`SELECT r.id, r.seq, m.taken_at,
        CASE WHEN ${inPendingQueue(userId)} THEN 1 ELSE 0 END AS pending,
        CASE WHEN EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id AND s.user_id = ${userId} AND s.status = 'submitted') THEN 1 ELSE 0 END AS submitted
      FROM record_reservations m ${postgres ? sql`` : sql`INDEXED BY record_reservations_dataset_user_idx`} JOIN records r ON r.id = m.record_id
      WHERE m.dataset_id = ${datasetId} AND m.user_id = ${userId} AND m.expires_at > ${at} AND ${postgres ? byIdOnly(datasetId) : sql`r.dataset_id = ${datasetId}`}`;
