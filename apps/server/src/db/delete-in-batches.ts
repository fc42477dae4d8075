import { type Kysely, sql } from "kysely";
import type { DB } from "./schema.js";

/**
 * Rows deleted per transaction. The embedded store has one writer: one transaction over a whole dataset's records held
 * every other dataset's writes (an annotator's Submit) for as long as it ran — 1.1 s at 20K records (~55 µs a record
 * with its responses, suggestions, vectors, text index and counters; load 7-9), so ~1 min at 1M. A batch of 1,000
 * holds them ≤ 250 ms (20K records, load 7); on PostgreSQL it keeps each transaction's locks and WAL short as well.
 */
export const DELETE_BATCH = 1_000;

/** Rows per transaction, or that with work to run between two batches (a test counts the rows left there). */
export type Batches = number | { size: number; between: () => Promise<void> };

/**
 * Deletes the rows of `table` whose `column` is `value`, `batch` rows per transaction (their cascades with them), and
 * the `parent` row (id `value`) in the transaction that finds fewer than `batch` left: rows another request adds
 * meanwhile go with it through their cascade. Other requests run between two batches. A deletion cut short (the
 * server stopped) has deleted some of the rows; running it again finishes it.
 */
export async function deleteInBatches(
  db: Kysely<DB>,
  rows: {
    table: "records" | "record_vectors" | "responses";
    column: "dataset_id" | "vector_settings_id" | "user_id";
    key: "id" | "record_id";
    value: string;
  },
  parent: "datasets" | "vectors_settings" | "users",
  batches: Batches = DELETE_BATCH,
): Promise<void> {
  const batch = typeof batches === "number" ? batches : batches.size;
  const table = sql.table(rows.table);
  const column = sql.ref(rows.column);
  const key = sql.ref(rows.key);
  for (;;) {
    const done = await db.transaction().execute(async (trx) => {
      const result = await sql`delete from ${table} where ${column} = ${rows.value} and ${key} in
        (select ${key} from ${table} where ${column} = ${rows.value} limit ${batch})`.execute(trx);
      if (Number(result.numAffectedRows ?? 0) >= batch) return false;
      await trx.deleteFrom(parent).where("id", "=", rows.value).execute();
      return true;
    });
    if (done) return;
    // Let the requests that waited for the connection (the embedded store's writer) run before the next batch.
    await new Promise((resolve) => setImmediate(resolve));
    if (typeof batches !== "number") await batches.between();
  }
}
