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
 * Here only on an empty `records_fts` (a new database: no time). A table with rows gets the index from
 * the server in the background (search/postgres-text-buckets.ts: `CREATE INDEX CONCURRENTLY`, writes go
 * on; the words-only index serves searches until the new one is valid, then is dropped): built in the
 * migration's transaction it held every write to `records_fts` for the whole build (96 s at 1M records
 * with 1 GB of `maintenance_work_mem`), and the server's start with it.
 */
/** The index on (words, bucket of record seqs); the server's background build (postgres-text-buckets.ts) makes the same. */
export const BUCKET_INDEX = "records_fts_tsv_seq_gin";
/** The GIN index of the words alone (0003), which it replaces. */
export const WORDS_INDEX = "records_fts_tsv_gin";
/** What the bucket index holds (SEQ_BUCKET of search/postgres-text-walk.ts: 1,024). */
export const BUCKET_INDEX_SQL = "USING gin (tsv, (array[record_seq / 1024]))";

export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ any: number }>`select 1 as any from records_fts limit 1`.execute(db);
  if (rows.length > 0) return;
  await sql.raw(`create index ${BUCKET_INDEX} on records_fts ${BUCKET_INDEX_SQL}`).execute(db);
  await sql.raw(`drop index if exists ${WORDS_INDEX}`).execute(db);
}
