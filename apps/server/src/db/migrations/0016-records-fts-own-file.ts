import { type Kysely, sql } from "kysely";

/**
 * The full-text index leaves the main database for a file of its own, written by a thread of its
 * own (search/text-index.ts): `records_fts` and its mark now live in `tessera-fts.db`, attached to
 * the main connection as `fts` (search queries name `records_fts` unqualified: SQLite resolves it in
 * the attached file once the main one has none). Tokenising and writing FTS5 segments was a third of
 * the request thread's CPU during an import (bench, 100K records: ~45-60 us per record); a second
 * file has its own write lock, so the indexer thread never holds the lock that requests write under.
 *
 * What stays here: `records_fts_changes`, the records whose text rows must change, for the indexer
 * to apply (a trigger cannot write into another database): a deleted record, and a record whose
 * fields were updated. New records need no entry (none on insert: it would cost the import, see 0008
 * and 0011): the indexer reads them by seq above its mark. The indexer applies the log in id order
 * (deleting the seq's rows and re-indexing the seq's current record when it is below its mark,
 * which also covers a seq SQLite reused) and the request thread prunes what it applied.
 *
 * The old table, its triggers and mark go; the new file is built from `records` at the first start
 * (the index is derived data: deleting the file rebuilds it).
 * SQLite only: PostgreSQL keeps its tsvector triggers (variant: no-op).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS records_fts_after_delete`.execute(db);
  await sql`DROP TRIGGER IF EXISTS records_fts_after_update`.execute(db);
  await sql`DROP TRIGGER IF EXISTS records_fts_mark_after_delete`.execute(db);
  // The UNINDEXED column's shadow table (0010's contentless_unindexed) outlives the DROP (bundled
  // SQLite 3.5x), and better-sqlite3's defensive mode refuses to drop it: emptied first, it stays as
  // an empty table of a few pages.
  await sql`INSERT INTO records_fts (records_fts) VALUES ('delete-all')`.execute(db);
  await sql`DROP TABLE IF EXISTS records_fts`.execute(db);
  await sql`DELETE FROM search_index_state WHERE name = 'records_fts'`.execute(db);
  await sql`CREATE TABLE records_fts_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL)`.execute(db);
  await sql`CREATE TRIGGER records_fts_changes_after_delete AFTER DELETE ON records
    BEGIN INSERT INTO records_fts_changes (seq) VALUES (old.seq); END`.execute(db);
  await sql`CREATE TRIGGER records_fts_changes_after_update AFTER UPDATE OF fields ON records
    WHEN old.fields IS NOT new.fields
    BEGIN INSERT INTO records_fts_changes (seq) VALUES (new.seq); END`.execute(db);
}
