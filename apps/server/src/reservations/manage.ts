import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";

import { RESERVATION_TIMEOUT_DEFAULT_SECONDS } from "@tessera/domain";

/** Time-outs read in the last few seconds, by dataset (every take asks; another replica's change shows within TTL_CACHE_MS). */
const ttlCache = new Map<string, { ttl: number; at: number }>();
const TTL_CACHE_MS = 5_000;

/** The dataset's reservation time-out in seconds. */
export async function ttlOf(db: Kysely<DB>, datasetId: string): Promise<number> {
  const cached = ttlCache.get(datasetId);
  if (cached && Date.now() - cached.at < TTL_CACHE_MS) return cached.ttl;
  const row = await db
    .selectFrom("dataset_reservation_settings")
    .select("ttl_seconds")
    .where("dataset_id", "=", datasetId)
    .executeTakeFirst();
  // five minutes when the dataset sets none (the domain's rule), renewed while the annotator works
  const ttl = row ? Number(row.ttl_seconds) : RESERVATION_TIMEOUT_DEFAULT_SECONDS;
  if (ttlCache.size > 10_000) ttlCache.clear();
  ttlCache.set(datasetId, { ttl, at: Date.now() });
  return ttl;
}

export async function setTtl(db: Kysely<DB>, datasetId: string, ttlSeconds: number): Promise<void> {
  await db
    .insertInto("dataset_reservation_settings")
    .values({ dataset_id: datasetId, ttl_seconds: ttlSeconds })
    .onConflict((oc) => oc.column("dataset_id").doUpdateSet({ ttl_seconds: ttlSeconds }))
    .execute();
  ttlCache.delete(datasetId);
}

/** Extends the caller's live reservations of the dataset by the time-out; returns how many and until when. */
export async function renew(
  db: Kysely<DB>,
  datasetId: string,
  userId: string,
  ttlSeconds: number,
): Promise<{ records: number; expiresAt: string }> {
  const at = new Date();
  const expiresAt = new Date(at.getTime() + ttlSeconds * 1000).toISOString();
  const result = await db
    .updateTable("record_reservations")
    .set({ expires_at: expiresAt })
    .where("dataset_id", "=", datasetId)
    .where("user_id", "=", userId)
    .where("expires_at", ">", at.toISOString())
    .executeTakeFirst();
  return { records: Number(result.numUpdatedRows), expiresAt };
}

/** Releases a user's reservations: of one dataset, or of every dataset (sign-out). Returns how many live ones were released. */
export async function release(db: Kysely<DB>, userId: string, datasetId: string | null): Promise<number> {
  const now = new Date().toISOString();
  let query = db.deleteFrom("record_reservations").where("user_id", "=", userId);
  if (datasetId !== null) query = query.where("dataset_id", "=", datasetId);
  const live = await db
    .selectFrom("record_reservations")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .$if(datasetId !== null, (q) => q.where("dataset_id", "=", datasetId!))
    .where("expires_at", ">", now)
    .executeTakeFirstOrThrow();
  await query.execute();
  return Number(live.n);
}

/** An admin releases a user's reservations of the dataset; null when the user does not exist. */
export async function releaseUserOf(db: Kysely<DB>, userId: string, datasetId: string): Promise<number | null> {
  const target = await db.selectFrom("users").select("id").where("id", "=", userId).executeTakeFirst();
  return target ? release(db, target.id, datasetId) : null;
}

export interface InProgress {
  /** Pending records that someone holds a live reservation of (and has not submitted). */
  records: number;
  users: { user_id: string; username: string; records: number; expires_at: string }[];
}

/** Records in progress in a dataset, overall and per annotator (the admins' view). */
export async function inProgress(db: Kysely<DB>, datasetId: string): Promise<InProgress> {
  const now = new Date().toISOString();
  const live = sql`o.dataset_id = ${datasetId} AND o.expires_at > ${now} AND r.status = 'pending'
    AND NOT EXISTS (SELECT 1 FROM responses so WHERE so.record_id = o.record_id AND so.user_id = o.user_id AND so.status = 'submitted')`;
  const [total, users] = await Promise.all([
    sql<{
      n: number | string;
    }>`SELECT count(DISTINCT o.record_id) AS n FROM record_reservations o JOIN records r ON r.id = o.record_id WHERE ${live}`.execute(db),
    sql<{
      user_id: string;
      username: string;
      n: number | string;
      expires_at: string;
    }>`SELECT u.id AS user_id, u.username AS username, count(*) AS n, max(o.expires_at) AS expires_at
      FROM record_reservations o JOIN records r ON r.id = o.record_id JOIN users u ON u.id = o.user_id
      WHERE ${live} GROUP BY u.id, u.username ORDER BY u.username`.execute(db),
  ]);
  return {
    records: Number(total.rows[0]?.n ?? 0),
    users: users.rows.map((u) => ({ user_id: u.user_id, username: u.username, records: Number(u.n), expires_at: u.expires_at })),
  };
}

let lastSweep = 0;
/** Deletes expired reservations (every query ignores them already: this only keeps the table small), at most once a minute per process. */
export async function sweepExpired(db: Kysely<DB>): Promise<void> {
  const at = Date.now();
  if (at - lastSweep < 60_000) return;
  lastSweep = at;
  await db.deleteFrom("record_reservations").where("expires_at", "<=", new Date(at).toISOString()).execute();
}
