import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { isPostgres } from "../db/dialect.js";

/** Records of a dataset by record status (records/status.ts). */
export interface RecordCounts {
  pending: number;
  completed: number;
  total: number;
}

const STATUSES = ["pending", "completed"] as const;
/** PostgreSQL: past this many delta rows for a dataset a reader folds them into one row per status. */
const COMPACT_ABOVE = 64;
/**
 * SQLite: records above the mark are counted in `records_dataset_status_seq_idx` (~0.1 us each) up
 * to this many; beyond, the reader folds them into the counters first (once per import, not per read).
 */
const FOLD_ABOVE = 4096;

/** Records of one status as a statement gives them. */
type Count = { status: string; n: number | string };

/**
 * The dataset's record counts from `dataset_record_counts` (migration 0011): a few index lookups
 * instead of counting the dataset's records. Exactly
 * `SELECT status, count(*) FROM records WHERE dataset_id = ? GROUP BY status`.
 */
export async function recordCounts(db: Kysely<DB>, datasetId: string): Promise<RecordCounts> {
  const rows = isPostgres(db) ? await postgresCounts(db, datasetId) : await sqliteCounts(db, datasetId);
  const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
  const pending = count("pending");
  const completed = count("completed");
  return { pending, completed, total: pending + completed };
}

/** Records of the dataset whose status is one of `statuses` (duplicates and unknown statuses allowed). */
export async function recordCountWithStatus(db: Kysely<DB>, datasetId: string, statuses: unknown[]): Promise<number> {
  const counts = await recordCounts(db, datasetId);
  return [...new Set(statuses)].reduce<number>(
    (s, v) => s + (v === "pending" ? counts.pending : v === "completed" ? counts.completed : 0),
    0,
  );
}

/**
 * The counters (exact up to the mark) plus the dataset's records above the mark, in one statement
 * (one read snapshot: a fold by another request cannot be counted twice).
 */
async function sqliteCounts(db: Kysely<DB>, datasetId: string): Promise<Count[]> {
  const mark = await sqliteMark(db);
  if (mark.last - mark.done > FOLD_ABOVE) await foldSqlite(db);
  const above = (status: string) => sql`SELECT ${status}, count(*) FROM records WHERE dataset_id = ${datasetId} AND status = ${status}
    AND seq > (SELECT seq FROM search_index_state WHERE name = 'dataset_record_counts')`;
  return (
    await sql<Count>`SELECT status, sum(n) AS n FROM (
      SELECT status, n FROM dataset_record_counts WHERE dataset_id = ${datasetId}
      UNION ALL ${above("pending")} UNION ALL ${above("completed")}
    ) GROUP BY status`.execute(db)
  ).rows;
}

async function sqliteMark(db: Kysely<DB>): Promise<{ done: number; last: number }> {
  return (
    await sql<{ done: number; last: number }>`
    SELECT (SELECT seq FROM search_index_state WHERE name = 'dataset_record_counts') AS done, coalesce((SELECT max(seq) FROM records), 0) AS last`.execute(
      db,
    )
  ).rows[0]!;
}

/**
 * SQLite: adds the records above the mark to the counters and moves the mark, in one transaction
 * (readers do it past FOLD_ABOVE; exported for tests). No-op on PostgreSQL.
 * Datasets from the rows (their first columns, no overflow pages), counts from the status index.
 */
export async function foldSqlite(db: Kysely<DB>): Promise<void> {
  if (isPostgres(db)) return;
  await db.transaction().execute(async (trx) => {
    const { done, last } = await sqliteMark(trx);
    if (last <= done) return;
    const datasets = (
      await sql<{ dataset_id: string }>`SELECT DISTINCT dataset_id FROM records WHERE seq > ${done} AND seq <= ${last}`.execute(trx)
    ).rows;
    for (const { dataset_id } of datasets) {
      for (const status of STATUSES) {
        await sql`INSERT INTO dataset_record_counts (dataset_id, status, n)
          SELECT ${dataset_id}, ${status}, count(*) FROM records WHERE dataset_id = ${dataset_id} AND status = ${status} AND seq > ${done} AND seq <= ${last}
          ON CONFLICT (dataset_id, status) DO UPDATE SET n = n + excluded.n`.execute(trx);
      }
    }
    await sql`UPDATE search_index_state SET seq = ${last} WHERE name = 'dataset_record_counts'`.execute(trx);
  });
}

/** PostgreSQL: the sum of the dataset's deltas, compacted when they pile up (`rows`: the delta rows summed). */
async function postgresCounts(db: Kysely<DB>, datasetId: string): Promise<Count[]> {
  const rows = (
    await sql<
      Count & { rows: number | string }
    >`select status, sum(n) as n, count(*) as rows from dataset_record_counts where dataset_id = ${datasetId} group by status`.execute(db)
  ).rows;
  if (rows.reduce((s, r) => s + Number(r.rows), 0) > COMPACT_ABOVE) await compactPostgres(db, datasetId);
  return rows;
}

/**
 * PostgreSQL: replaces the dataset's deltas by their sums. Safe with concurrent writers and
 * compactions: it deletes only the rows its snapshot sees (rows deleted meanwhile by another
 * compaction are skipped) and re-inserts exactly their sum.
 */
async function compactPostgres(db: Kysely<DB>, datasetId: string): Promise<void> {
  await sql`with gone as (delete from dataset_record_counts where dataset_id = ${datasetId} returning status, n)
    insert into dataset_record_counts (dataset_id, status, n) select ${datasetId}, status, sum(n) from gone group by status`.execute(db);
}
