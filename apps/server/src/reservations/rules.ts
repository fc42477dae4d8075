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
 * `r` is in U's queue, not yet U's, and free for U to take (its takers are below min_submitted).
 * A pending record has fewer submitted answers than min_submitted (its status says so), so only
 * records with live reservations of others can be full: those are found once per statement (a
 * subquery not correlated with `r`, computed over the dataset's live reservations) instead of
 * counting takers for every record the scan passes.
 */
export const freeFor = (datasetId: string, userId: string, minSubmitted: number, at: string) =>
  sql`${inPendingQueue(userId)} AND NOT ${heldBy(userId, at)} AND r.id NOT IN (
    SELECT f.record_id FROM record_reservations f
    WHERE f.dataset_id = ${datasetId} AND f.user_id <> ${userId} AND f.expires_at > ${at} AND ${takers(sql`f.record_id`, userId, at)} >= ${minSubmitted})`;

/** `r` is in U's queue but out of U's reach: others hold the places left (not U's own, takers at min_submitted). */
export const blockedFor = (userId: string, minSubmitted: number, at: string) =>
  sql`${inPendingQueue(userId)} AND NOT ${heldBy(userId, at)} AND ${takers(sql`r.id`, userId, at)} >= ${minSubmitted}`;
