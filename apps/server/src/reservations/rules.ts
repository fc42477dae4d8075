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
export const takers = (record: RawBuilder<unknown>, userId: string, at: string) => sql<number>`(
  (SELECT count(*) FROM responses s WHERE s.record_id = ${record} AND s.status = 'submitted')
  + (SELECT count(*) FROM record_reservations o WHERE o.record_id = ${record} AND o.user_id <> ${userId} AND o.expires_at > ${at}
      AND NOT EXISTS (SELECT 1 FROM responses so WHERE so.record_id = ${record} AND so.user_id = o.user_id AND so.status = 'submitted')))`;

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
 * reservations instead of counting takers for every record a scan passes. U's own reservations
 * never count (takers are others), so U's take does not change the set.
 */
export const fullFor = (datasetId: string, userId: string, minSubmitted: number, at: string) =>
  sql`SELECT f.record_id AS record_id, f.user_id AS user_id FROM record_reservations f
    WHERE f.dataset_id = ${datasetId} AND f.user_id <> ${userId} AND f.expires_at > ${at}
      AND NOT EXISTS (SELECT 1 FROM responses fs WHERE fs.record_id = f.record_id AND fs.user_id = f.user_id AND fs.status = 'submitted')
      AND ${takers(sql`f.record_id`, userId, at)} >= ${minSubmitted}`;

/**
 * Where a statement reads the full set from: `fullFor` as a subquery (PostgreSQL, where each
 * statement must see what concurrent takers committed), or rows the take already read in the same
 * SQLite transaction, passed as JSON `[[record_id, user_id], ...]`.
 */
export type FullSet = { query: RawBuilder<unknown> } | { rows: [string, string][] };
export const fullSource = (full: FullSet) =>
  "query" in full
    ? sql`(${full.query})`
    : sql`(SELECT json_extract(value, '$[0]') AS record_id, json_extract(value, '$[1]') AS user_id FROM json_each(${JSON.stringify(full.rows)}))`;

/** `r` is in U's queue, not yet U's, and free for U to take (not in the full set). */
export const freeFor = (userId: string, at: string, full: FullSet) =>
  sql`${inPendingQueue(userId)} AND NOT ${heldBy(userId, at)} AND r.id NOT IN (SELECT x.record_id FROM ${fullSource(full)} x)`;

/**
 * (CROSS JOIN: SQLite then reads the few full records first and looks each up, instead of scanning
 * the dataset's pending records against the set.)
 *
 * U's queue records out of U's reach (others hold the places left; not U's own), counted with the
 * teammates holding them, and the pending records U answered: what the queue's total needs beside
 * the dataset's counters. One row: `answered`, `records`, `teammates`.
 */
export const queueTotalsFor = (datasetId: string, userId: string, at: string, full: FullSet) =>
  sql`SELECT
    (SELECT count(*) FROM responses s WHERE s.user_id = ${userId}
      AND EXISTS (SELECT 1 FROM records r WHERE r.id = s.record_id AND r.dataset_id = ${datasetId} AND r.status = 'pending')) AS answered,
    held.records, held.teammates
    FROM (SELECT count(DISTINCT r.id) AS records, count(DISTINCT x.user_id) AS teammates
      FROM ${fullSource(full)} x CROSS JOIN records r
      WHERE r.id = x.record_id AND r.dataset_id = ${datasetId} AND ${inPendingQueue(userId)} AND NOT ${heldBy(userId, at)}) AS held`;
