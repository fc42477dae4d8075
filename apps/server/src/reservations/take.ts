import { sql, type Kysely, type Transaction } from "kysely";
import type { DB } from "../db/schema.js";
import { isPostgres } from "../db/dialect.js";
import { recordCounts } from "../records/counts.js";
import { blockedFor, freeFor, inPendingQueue } from "./rules.js";
import { withRetriedTransaction } from "./transaction.js";

export interface TakeRequest {
  datasetId: string;
  userId: string;
  minSubmitted: number;
  /** Window on the caller's queue: their own reservations (in the order taken) first, then new ones. */
  offset: number;
  limit: number;
  ttlSeconds: number;
}

/** What the caller cannot take because teammates hold it. */
export interface HeldByOthers {
  records: number;
  teammates: number;
}

export interface TakeResult {
  /** The records of the window, in queue order; every one is reserved for the caller until `expiresAt`. */
  recordIds: string[];
  /** The caller's queue: their reservations plus the records still free for them. */
  total: number;
  heldByOthers: HeldByOthers;
  expiresAt: string;
}

/** At most this many rounds to fill a window when concurrent takers keep winning the candidates. */
const ROUNDS = 5;

/**
 * Takes a window of the caller's annotation queue and reserves it (issue 29). The caller's live
 * reservations come first, renewed; the window's remaining places are the first free records in
 * insertion order, reserved in the same transaction. On SQLite the transaction is the single
 * writer. On PostgreSQL the candidate records are row-locked (`FOR NO KEY UPDATE SKIP LOCKED`: concurrent
 * takers spread over the queue instead of waiting on its head) and checked again by a new
 * statement, which sees every reservation committed by a taker that held a lock before us, while a
 * later taker waits for ours; so replicas never give a record beyond `min_submitted`.
 */
export async function takeReserved(db: Kysely<DB>, request: TakeRequest): Promise<TakeResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await takeOnce(db, request);
    // PostgreSQL skips records that concurrent takers are locking: when they left none for the caller
    // while some are free again (a concurrent taker found them full), take once more.
    if (result.recordIds.length > 0 || result.total === 0 || attempt >= 3) return result;
    await new Promise((r) => setTimeout(r, 5 * attempt));
  }
}

async function takeOnce(db: Kysely<DB>, request: TakeRequest): Promise<TakeResult> {
  const { datasetId, userId, minSubmitted, offset, limit } = request;
  const taken = await withRetriedTransaction(db, async (trx) => {
    const at = new Date();
    const now = at.toISOString();
    const expiresAt = new Date(at.getTime() + request.ttlSeconds * 1000).toISOString();
    // one take at a time per annotator and dataset (two tabs, or the web app's load and buffer at once), on every replica
    if (isPostgres(trx)) await sql`SELECT pg_advisory_xact_lock(hashtext(${`reservations:${datasetId}:${userId}`}))`.execute(trx);
    const held = (
      await sql<{ id: string; pending: number | boolean; submitted: number | boolean }>`SELECT r.id,
        CASE WHEN ${inPendingQueue(userId)} THEN 1 ELSE 0 END AS pending,
        CASE WHEN EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id AND s.user_id = ${userId} AND s.status = 'submitted') THEN 1 ELSE 0 END AS submitted
      FROM record_reservations m JOIN records r ON r.id = m.record_id
      WHERE m.dataset_id = ${datasetId} AND m.user_id = ${userId} AND m.expires_at > ${now} AND r.dataset_id = ${datasetId}
      ORDER BY m.taken_at, r.seq`.execute(trx)
    ).rows;
    // a submitted answer has taken its reservation's place: drop those, so that the live reservations stay few
    const done = held.filter((r) => Number(r.submitted) === 1).map((r) => r.id);
    if (done.length > 0) await trx.deleteFrom("record_reservations").where("user_id", "=", userId).where("record_id", "in", done).execute();
    // a take renews the caller's other live reservations (draft and discard keep theirs)
    if (held.length > done.length) {
      await trx
        .updateTable("record_reservations")
        .set({ expires_at: expiresAt })
        .where("dataset_id", "=", datasetId)
        .where("user_id", "=", userId)
        .where("expires_at", ">", now)
        .execute();
    }
    const own = held.filter((r) => Number(r.pending) === 1).map((r) => r.id);
    const window = own.slice(offset, offset + limit);
    for (let round = 0; round < ROUNDS && window.length < limit; round++) {
      const fresh = await reserveFree(trx, request, limit - window.length, now, expiresAt);
      if (fresh.candidates === 0) break;
      window.push(...fresh.reserved);
    }
    return { window, now, expiresAt };
  });
  const [total, heldByOthers] = await Promise.all([
    pendingQueueTotal(db, datasetId, userId),
    heldByOthersOf(db, datasetId, userId, minSubmitted, new Date().toISOString()),
  ]);
  return {
    recordIds: taken.window,
    total: Math.max(taken.window.length, total - heldByOthers.records),
    heldByOthers,
    expiresAt: taken.expiresAt,
  };
}

async function reserveFree(
  trx: Transaction<DB>,
  request: TakeRequest,
  many: number,
  now: string,
  expiresAt: string,
): Promise<{ candidates: number; reserved: string[] }> {
  const { datasetId, userId, minSubmitted } = request;
  // PostgreSQL: the candidates are locked, skipping those another taker is locking (it is taking them)
  const lock = isPostgres(trx) ? sql`FOR NO KEY UPDATE OF r SKIP LOCKED` : sql``;
  const candidates = (
    await sql<{
      id: string;
    }>`SELECT r.id FROM records r WHERE r.dataset_id = ${datasetId} AND ${freeFor(datasetId, userId, minSubmitted, now)}
    ORDER BY r.seq LIMIT ${many} ${lock}`.execute(trx)
  ).rows.map((r) => r.id);
  if (candidates.length === 0) return { candidates: 0, reserved: [] };
  let reserved = candidates;
  if (isPostgres(trx)) {
    // re-checked by a new statement: it sees what a taker that locked them before us committed
    const list = sql.join(candidates.map((id) => sql`${id}`));
    reserved = (
      await sql<{
        id: string;
      }>`SELECT r.id FROM records r WHERE r.id IN (${list}) AND ${freeFor(datasetId, userId, minSubmitted, now)} ORDER BY r.seq`.execute(
        trx,
      )
    ).rows.map((r) => r.id);
  }
  if (reserved.length > 0) {
    await trx
      .insertInto("record_reservations")
      .values(reserved.map((id) => ({ record_id: id, user_id: userId, dataset_id: datasetId, taken_at: now, expires_at: expiresAt })))
      .onConflict((oc) => oc.columns(["record_id", "user_id"]).doUpdateSet({ taken_at: now, expires_at: expiresAt }))
      .execute();
  }
  return { candidates: candidates.length, reserved };
}

/**
 * The caller's pending queue without reservations: the dataset's pending records (its counters,
 * migration 0011) minus those the caller answered (one probe per answer of theirs), as
 * `GET /me/datasets/{id}/metrics` counts it; cheaper than the search's total on every take.
 */
async function pendingQueueTotal(db: Kysely<DB>, datasetId: string, userId: string): Promise<number> {
  const [counts, answered] = await Promise.all([
    recordCounts(db, datasetId),
    db
      .selectFrom("responses as s")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("s.user_id", "=", userId)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom("records as r")
            .select("r.id")
            .whereRef("r.id", "=", "s.record_id")
            .where("r.dataset_id", "=", datasetId)
            .where("r.status", "=", "pending"),
        ),
      )
      .executeTakeFirstOrThrow(),
  ]);
  return counts.pending - Number(answered.n);
}

/** The records of the caller's queue that teammates hold (the places left are taken), and how many teammates hold them. */
export async function heldByOthersOf(
  db: Kysely<DB>,
  datasetId: string,
  userId: string,
  minSubmitted: number,
  now: string,
): Promise<HeldByOthers> {
  const row = (
    await sql<{
      records: number | string;
      teammates: number | string;
    }>`SELECT count(DISTINCT r.id) AS records, count(DISTINCT o.user_id) AS teammates
    FROM record_reservations o JOIN records r ON r.id = o.record_id
    WHERE o.dataset_id = ${datasetId} AND o.user_id <> ${userId} AND o.expires_at > ${now} AND r.dataset_id = ${datasetId}
      AND NOT EXISTS (SELECT 1 FROM responses so WHERE so.record_id = r.id AND so.user_id = o.user_id AND so.status = 'submitted')
      AND ${blockedFor(userId, minSubmitted, now)}`.execute(db)
  ).rows[0];
  return { records: Number(row?.records ?? 0), teammates: Number(row?.teammates ?? 0) };
}
