import { type Kysely, sql } from "kysely";

/**
 * Reservations of the annotation queue (reservations/): a record taken by an annotator through the
 * web app's queue (`reserve=true` on `/me/datasets/{id}/records/search`) is theirs until
 * `expires_at`; records whose submitted answers plus live reservations of others reach the
 * dataset's `min_submitted` are skipped for everyone else. `taken_at` orders the taker's own
 * records first, in the order taken (renewals keep it). `dataset_reservation_settings` holds the
 * per-dataset time-out (absent: the server's default). Portable SQL: the same on PostgreSQL.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE record_reservations (
    record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    taken_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (record_id, user_id)
  )`.execute(db);
  await sql`CREATE INDEX record_reservations_dataset_user_idx ON record_reservations (dataset_id, user_id, taken_at)`.execute(db);
  await sql`CREATE INDEX record_reservations_dataset_expires_idx ON record_reservations (dataset_id, expires_at)`.execute(db);
  await sql`CREATE INDEX record_reservations_user_idx ON record_reservations (user_id)`.execute(db);
  await sql`CREATE TABLE dataset_reservation_settings (
    dataset_id TEXT PRIMARY KEY REFERENCES datasets(id) ON DELETE CASCADE,
    ttl_seconds INTEGER NOT NULL
  )`.execute(db);
}
