import { type Kysely, sql } from "kysely";

/**
 * `records_fts`'s GIN index with a second column: the row's bucket of 1,024 consecutive record seqs
 * (`array[record_seq / 1024]`, GIN's built-in array operators, no extension), replacing the index of
 * the words alone (0003). A text query can then be restricted in the index to a range of records:
 * `tsv @@ q AND array[record_seq / 1024] && '{b, b+1, ...}'` reads the words' posting lists only
 * inside those buckets. The windows of a phrase or prefix (search/postgres-text-walk.ts: the first
 * 1,000 matching records in seq order) otherwise either walked the records in seq order, checking every
 * row's tsvector (a phrase in 3% of the rows: ~31K rows, 23 ms of PostgreSQL CPU at 55K bench records),
 * or took every match of the whole table from the index (each word's whole posting list, then every
 * match's heap row); through the buckets the same window took 2.5 ms (docs/performance.md). Queries on
 * the words alone use this index as they used the old one (GIN reads the columns a query names).
 *
 * 1M bench records, 50 new phrases: 30.4 -> 20.0 ms of PostgreSQL CPU per search (docs/performance.md).
 *
 * Built once, in the migration's transaction (writes to `records_fts` wait meanwhile): 18 s for 110K
 * rows at load 16, 96 s for 2M rows (1M records; `maintenance_work_mem` 1 GB), 500 MB; the old index is
 * dropped after, so an insert costs what it did (one more key per row).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index records_fts_tsv_seq_gin on records_fts using gin (tsv, (array[record_seq / 1024]))`.execute(db);
  await sql`drop index if exists records_fts_tsv_gin`.execute(db);
}
