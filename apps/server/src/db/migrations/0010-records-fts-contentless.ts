import { type Kysely, sql } from "kysely";

/**
 * Rebuilds `records_fts` (0003) as a contentless FTS5 table: `content=''` keeps only the index, no
 * copy of the text (nothing reads it: search only matches, scores with bm25 and filters on `field`);
 * `contentless_unindexed=1` still stores the UNINDEXED `field` column (the text field's name), in a
 * small `records_fts_content` table; `contentless_delete=1` (SQLite >= 3.43, bundled 3.54) keeps
 * `DELETE ... WHERE rowid BETWEEN` working for the delete/update triggers. Same rows as before: rowid
 * = records.seq * 1024 + position of the text field (the search adapter's dataset range relies on it).
 *
 * Measured (bench dataset, 100K records): the ingestion writes ~37% fewer pages for the text and a
 * one-field search reads a short `field` row per match instead of the whole text (see
 * docs/performance.md). The old table is dropped and the rows are rebuilt from `records.fields`
 * (what `indexRecordTexts` writes), so an existing database migrates forward; scores are unchanged
 * (bm25 reads only the index and the per-row token counts).
 * SQLite only: PostgreSQL keeps its tsvector table (variant: no-op).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS records_fts_after_delete`.execute(db);
  await sql`DROP TRIGGER IF EXISTS records_fts_after_update`.execute(db);
  await sql`DROP TABLE IF EXISTS records_fts`.execute(db);
  await sql`CREATE VIRTUAL TABLE records_fts USING fts5(content, field UNINDEXED, content = '', contentless_delete = 1, contentless_unindexed = 1,
    tokenize = 'unicode61 remove_diacritics 2')`.execute(db);
  await sql`INSERT INTO records_fts (rowid, content, field)
    SELECT seq * 1024 + position - 1, content, field FROM (
      SELECT r.seq AS seq, j.value AS content, j.key AS field, row_number() OVER (PARTITION BY r.seq ORDER BY j.id) AS position
      FROM records r, json_each(r.fields) AS j WHERE j.type = 'text'
    ) WHERE position <= 1024 ORDER BY seq, position`.execute(db);
  await sql`CREATE TRIGGER records_fts_after_delete AFTER DELETE ON records BEGIN
    DELETE FROM records_fts WHERE rowid BETWEEN old.seq * 1024 AND old.seq * 1024 + 1023;
  END`.execute(db);
  await sql`CREATE TRIGGER records_fts_after_update AFTER UPDATE OF fields ON records BEGIN
    DELETE FROM records_fts WHERE rowid BETWEEN old.seq * 1024 AND old.seq * 1024 + 1023;
    INSERT INTO records_fts (rowid, content, field)
      SELECT new.seq * 1024 + (row_number() OVER ()) - 1, j.value, j.key FROM json_each(new.fields) AS j WHERE j.type = 'text' LIMIT 1024;
  END`.execute(db);
}
