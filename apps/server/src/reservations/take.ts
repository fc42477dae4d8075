import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { recordCounts } from "../records/counts.js";
import {
  answeredPendingBy,
  freeFor,
  fullFor,
  type FullRows,
  type FullSet,
  fullSetOf,
  heldByCaller,
  postgresQueueTotals,
  queueOutOfReachAmong,
} from "./rules.js";
import { advisoryKey, withRetriedPostgresTransaction } from "./transaction.js";
import { cachedSqliteOf, rawSqliteOf } from "../db/database.js";
import { runOnPostgres, runOnSqlite, type Steps } from "./steps.js";

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
    // PostgreSQL skips records that concurrent takers are locking: when they left none for the caller
    // while some are free again (a concurrent taker found them full), take once more; the last time
    // waiting for those locks instead of skipping them, so that the answer is exact (empty only when
    // teammates really hold the rest).
    const result = await takeOnce(db, request, attempt >= 3);
    if (result.recordIds.length > 0 || result.total === 0 || attempt >= 3) return result;
    await new Promise((r) => setTimeout(r, 5 * attempt));
  }
}

/**
 * One take. Its statements are written once (`takeSteps`, a generator that yields each statement and
 * receives its rows) and run by the store's driver: on SQLite synchronously on the embedded
 * connection in one immediate transaction (no other statement comes in between, the records at
 * capacity are read once and reused by the take and by the totals, and there is no round trip
 * through the query builder's driver per statement); on PostgreSQL statement by statement in a
 * transaction retried on deadlocks, every statement reading the records at capacity afresh (it must
 * see what concurrent takers committed), the totals after it.
 */
async function takeOnce(db: Kysely<DB>, request: TakeRequest, waitForLocks: boolean): Promise<TakeResult> {
  const raw = rawSqliteOf(db);
  const connection = cachedSqliteOf(db);
  if (raw && connection) {
    const counts = await recordCounts(db, request.datasetId);
    const { taken, totals } = await db
      .connection()
      .execute(async () => raw.transaction(() => runOnSqlite(connection, sqliteSteps(db, request, new Date()))).immediate());
    return resultOf(taken, counts.pending, totals);
  }
  // one take at a time per annotator and dataset (two tabs, or the web app's load and buffer at once), on every replica
  const opening = `SELECT pg_advisory_xact_lock(${advisoryKey(`reservations:${request.datasetId}:${request.userId}`)})`;
  const taken = await withRetriedPostgresTransaction(db, opening, (conn) =>
    runOnPostgres(conn, takeSteps(db, request, new Date(), { waitForLocks })),
  );
  const at = new Date().toISOString();
  // the dataset's counters and the totals are read side by side (round trips are what a take waits on under load)
  const [counts, totals] = await Promise.all([
    recordCounts(db, request.datasetId),
    runOnPostgres(db, postgresTotalsSteps(db, request, at)),
  ]);
  return resultOf(taken, counts.pending, totals);
}

interface Taken {
  window: string[];
  expiresAt: string;
}
interface Totals {
  answered: number;
  heldByOthers: HeldByOthers;
}

function resultOf(taken: Taken, pending: number, totals: Totals): TakeResult {
  // The caller's queue: the dataset's pending records (its counters, migration 0011) minus those the
  // caller answered, minus those teammates fill.
  const total = pending - totals.answered - totals.heldByOthers.records;
  return {
    recordIds: taken.window,
    total: Math.max(taken.window.length, total),
    heldByOthers: totals.heldByOthers,
    expiresAt: taken.expiresAt,
  };
}

/** The records at capacity for the caller (rules.ts `fullFor`), read as rows. */
function* fullSteps(db: Kysely<DB>, request: TakeRequest, now: string): Steps<FullRows> {
  const rows = (yield fullFor(request.datasetId, request.userId, request.minSubmitted, now).compile(db)) as {
    record_id: string;
    user_id: string;
  }[];
  return fullSetOf(rows.map((r) => [r.record_id, r.user_id]));
}

/** PostgreSQL, after the take's transaction: the records at capacity read afresh with the totals on them, in one statement. */
function* postgresTotalsSteps(db: Kysely<DB>, request: TakeRequest, now: string): Steps<Totals> {
  const rows = (yield postgresQueueTotals(request.datasetId, request.userId, request.minSubmitted, now).compile(db)) as {
    answered: number | string;
    record_id: string | null;
    user_id: string | null;
    out_of_reach: number | boolean | null;
  }[];
  const full = rows.filter((r) => r.record_id !== null).map((r) => [r.record_id!, r.user_id!] as [string, string]);
  const outOfReach = new Set(rows.filter((r) => Number(r.out_of_reach) === 1).map((r) => r.record_id!));
  return { answered: Number(rows[0]?.answered ?? 0), heldByOthers: heldByOthersOf(full, outOfReach) };
}

/** The records out of the caller's reach and the teammates holding them (the full set's (record, holder) rows). */
function heldByOthersOf(rows: [string, string][], outOfReach: Set<string>): HeldByOthers {
  const teammates = new Set(rows.filter(([record]) => outOfReach.has(record)).map(([, holder]) => holder));
  return { records: outOfReach.size, teammates: teammates.size };
}

/** SQLite: the records at capacity read once, then the take and the totals on that set. */
function* sqliteSteps(db: Kysely<DB>, request: TakeRequest, at: Date): Steps<{ taken: Taken; totals: Totals }> {
  const now = at.toISOString();
  const full = yield* fullSteps(db, request, now);
  const taken = yield* takeSteps(db, request, at, { full });
  const totals = yield* totalsSteps(db, request, now, full);
  return { taken, totals };
}

/** The take's statements, in order: the caller's reservations renewed, then free records reserved until the window is full. */
/**
 * On PostgreSQL (`waitForLocks` given), the candidates are row-locked, skipping those other takers
 * lock unless `waitForLocks`; on SQLite (`full` given) the records at capacity were read in the same transaction.
 */
function* takeSteps(db: Kysely<DB>, request: TakeRequest, at: Date, how: { full: FullSet } | { waitForLocks: boolean }): Steps<Taken> {
  const postgres = "waitForLocks" in how;
  const { datasetId, userId, minSubmitted, offset, limit } = request;
  const now = at.toISOString();
  const expiresAt = new Date(at.getTime() + request.ttlSeconds * 1000).toISOString();
  const full: FullSet = "full" in how ? how.full : { query: fullFor(datasetId, userId, minSubmitted, now) };
  const heldQuery = heldByCaller(datasetId, userId, now, postgres);
  // PostgreSQL: the candidates are locked, skipping those another taker is locking (it is taking them)
  const lock = !postgres ? sql`` : how.waitForLocks ? sql`FOR NO KEY UPDATE OF r` : sql`FOR NO KEY UPDATE OF r SKIP LOCKED`;
  const candidatesOf = (n: unknown) =>
    sql`SELECT r.id, r.seq FROM records r WHERE r.dataset_id = ${datasetId} AND ${freeFor(userId, now, full)} ORDER BY r.seq LIMIT ${n} ${lock}`;
  // a submitted answer has taken its reservation's place: drop those, so that the live reservations stay few;
  // a take renews the caller's other live reservations (draft and discard keep theirs). PostgreSQL: one
  // statement for the three and the first candidates (each round trip waits for a turn of the server's
  // event loop under load); the candidates fill the window's places the caller's pending records leave.
  let first: string[] | null = null;
  let held: { id: string; pending: number | boolean; submitted: number | boolean }[];
  if (postgres) {
    const places = sql`greatest(0, ${limit} - least(${limit}, greatest(0, (SELECT count(*) FROM held WHERE pending = 1) - ${offset})))`;
    const rows = (yield sql`WITH held AS MATERIALIZED (${heldQuery}),
        dropped AS (DELETE FROM record_reservations d USING held h WHERE d.user_id = ${userId} AND d.record_id = h.id AND h.submitted = 1),
        renewed AS (UPDATE record_reservations u SET expires_at = ${expiresAt} FROM held h WHERE u.user_id = ${userId} AND u.record_id = h.id AND h.submitted = 0),
        candidates AS (${candidatesOf(places)})
      SELECT 0 AS kind, id, pending, submitted, taken_at, seq FROM held
      UNION ALL SELECT 1 AS kind, id, 1, 0, NULL, seq FROM candidates
      ORDER BY kind, taken_at, seq`.compile(db)) as { kind: number; id: string; pending: number; submitted: number }[];
    held = rows.filter((r) => r.kind === 0);
    first = rows.filter((r) => r.kind === 1).map((r) => r.id);
  } else {
    held = (yield sql`${heldQuery} ORDER BY m.taken_at, r.seq`.compile(db)) as typeof held;
    const done = held.filter((r) => Number(r.submitted) === 1).map((r) => r.id);
    if (done.length > 0) yield db.deleteFrom("record_reservations").where("user_id", "=", userId).where("record_id", "in", done).compile();
    if (held.length > done.length) {
      yield db
        .updateTable("record_reservations")
        .set({ expires_at: expiresAt })
        .where("dataset_id", "=", datasetId)
        .where("user_id", "=", userId)
        .where("expires_at", ">", now)
        .compile();
    }
  }
  const window = held
    .filter((r) => Number(r.pending) === 1)
    .map((r) => r.id)
    .slice(offset, offset + limit);
  for (let round = 0; round < ROUNDS && window.length < limit; round++) {
    const candidates =
      round === 0 && first !== null
        ? first
        : ((yield candidatesOf(limit - window.length).compile(db)) as { id: string }[]).map((r) => r.id);
    if (candidates.length === 0) break;
    if (postgres) {
      // re-checked by a new statement, which sees what a taker that locked them before us committed,
      // and reserved by the same statement: those still free
      const inserted = new Set(
        (
          (yield sql`INSERT INTO record_reservations (record_id, user_id, dataset_id, taken_at, expires_at)
            SELECT r.id, ${userId}, ${datasetId}, ${now}, ${expiresAt} FROM records r WHERE r.id = ANY(${candidates}::text[]) AND ${freeFor(userId, now, full)}
            ON CONFLICT (record_id, user_id) DO UPDATE SET taken_at = excluded.taken_at, expires_at = excluded.expires_at
            RETURNING record_id`.compile(db)) as { record_id: string }[]
        ).map((r) => r.record_id),
      );
      window.push(...candidates.filter((id) => inserted.has(id)));
    } else {
      yield db
        .insertInto("record_reservations")
        .values(candidates.map((id) => ({ record_id: id, user_id: userId, dataset_id: datasetId, taken_at: now, expires_at: expiresAt })))
        .onConflict((oc) => oc.columns(["record_id", "user_id"]).doUpdateSet({ taken_at: now, expires_at: expiresAt }))
        .compile();
      window.push(...candidates);
    }
  }
  return { window, expiresAt };
}

/**
 * SQLite: what the caller's queue total needs beside the dataset's counters: the pending records the caller
 * answered, and the records of the full set (read as rows just before) out of the caller's reach,
 * with the teammates holding them counted from the rows (rules.ts `queueOutOfReachAmong`).
 */
function* totalsSteps(db: Kysely<DB>, request: TakeRequest, now: string, { rows, records }: FullRows): Steps<Totals> {
  const { datasetId, userId } = request;
  const answered = ((yield answeredPendingBy(datasetId, userId).compile(db)) as { answered: number | string }[])[0]?.answered ?? 0;
  const outOfReach = new Set(
    records.length === 0
      ? []
      : ((yield queueOutOfReachAmong(datasetId, userId, now, records).compile(db)) as { id: string }[]).map((r) => r.id),
  );
  return { answered: Number(answered), heldByOthers: heldByOthersOf(rows, outOfReach) };
}
