import { type Kysely, sql } from "kysely";

/**
 * `records_fts.tsv` stored in its row (`STORAGE MAIN`) instead of out of line (issue 31). A text field of
 * 50-500 words gives a tsvector of ~2.5 KB (pglz does not shrink it), which PostgreSQL moved to the TOAST
 * table as soon as a row exceeded 2 KB: 70% of the 1M bench records' text rows. Every search that reads
 * tsvectors (the walk of a phrase or prefix in seq order, ts_rank of a window, the probe) then read
 * the TOAST index and two chunks per row besides the row itself. Inline, at 1M bench records: the walk
 * of a phrase took 2-2.7x less PostgreSQL CPU, ts_rank of a window of 1,000 records ~1.5x less
 * (docs/performance.md). A tsvector too large for a page (~8 KB) still goes out of line.
 *
 * Metadata only: rows written from now on are stored inline; the rows already there are rewritten in the
 * background by the server (search/postgres-text-inline.ts, from `next_seq` to `last_seq` below, in
 * small batches: the migration itself takes no time, and searches and imports go on meanwhile).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table records_fts alter column tsv set storage main`.execute(db);
  await sql`create table records_fts_inline (
    id integer primary key check (id = 1),
    next_seq bigint not null,
    last_seq bigint not null
  )`.execute(db);
  await sql`insert into records_fts_inline (id, next_seq, last_seq)
    select 1, min(record_seq), max(record_seq) from records_fts having count(*) > 0`.execute(db);
}
