import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { isPostgres } from "../db/dialect.js";

/** Records of a dataset by record status (records/status.ts). */
export interface RecordCounts { pending: number; completed: number; total: number }

/**
 * PostgreSQL keeps appending deltas (migration 0011's variant); past this many rows for a dataset
 * a reader folds them into one row per status, so a read stays a few index entries.
 */
const COMPACT_ABOVE = 64;

/**
 * The dataset's record counts from `dataset_record_counts` (migration 0011, kept exact by triggers
 * on `records`): constant cost instead of counting the dataset's records. Exactly
 * `SELECT status, count(*) FROM records WHERE dataset_id = ? GROUP BY status`.
 */
export async function recordCounts(db: Kysely<DB>, datasetId: string): Promise<RecordCounts> {
  const rows = await sql<{ status: string; n: number | string; rows: number | string }>`
    select status, sum(n) as n, count(*) as rows from dataset_record_counts where dataset_id = ${datasetId} group by status`.execute(db);
  if (isPostgres(db) && rows.rows.reduce((s, r) => s + Number(r.rows), 0) > COMPACT_ABOVE) await compact(db, datasetId);
  const count = (status: string) => Number(rows.rows.find((r) => r.status === status)?.n ?? 0);
  const pending = count("pending");
  const completed = count("completed");
  return { pending, completed, total: pending + completed };
}

/** Records of the dataset whose status is one of `statuses` (duplicates and unknown statuses allowed). */
export async function recordCountWithStatus(db: Kysely<DB>, datasetId: string, statuses: unknown[]): Promise<number> {
  const counts = await recordCounts(db, datasetId);
  return [...new Set(statuses)].reduce<number>((s, v) => s + (v === "pending" ? counts.pending : v === "completed" ? counts.completed : 0), 0);
}

/**
 * PostgreSQL: replaces the dataset's deltas by their sums. Safe with concurrent writers and
 * compactions: it deletes only the rows its snapshot sees (rows deleted meanwhile by another
 * compaction are skipped) and re-inserts exactly their sum.
 */
async function compact(db: Kysely<DB>, datasetId: string): Promise<void> {
  await sql`with gone as (delete from dataset_record_counts where dataset_id = ${datasetId} returning status, n)
    insert into dataset_record_counts (dataset_id, status, n) select ${datasetId}, status, sum(n) from gone group by status`.execute(db);
}
