import { type Kysely, sql } from "kysely";

/**
 * Drops the `records_fts_after_insert` trigger (from 0003): record ingestion now writes the FTS rows
 * itself (`records/ingest.ts`, same rowids `seq * 1024 + position`, one row per text field).
 * Measured on the benchmark's records: any AFTER INSERT trigger on `records` makes every insert a
 * statement transaction, and FTS5 flushes its pending terms at each statement savepoint, so a batch
 * wrote one tiny segment per record (~200 µs per record against ~90 µs with the FTS rows inserted
 * after the records of the batch). The delete and update triggers stay. Anything that inserts
 * records outside the ingestion indexes them with `indexRecordTexts` (records/ingest.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS records_fts_after_insert`.execute(db);
}
