import { type Kysely, sql } from "kysely";

/**
 * Deferred full-text indexing (search/text-index.ts): the record ingestion no longer writes
 * `records_fts` rows; the text indexer writes them for every record with `seq` above the
 * `search_index_state` mark 'records_fts', and every reader of `records_fts` catches up first.
 *
 * - The mark starts at the largest seq: every existing record is indexed (0010 / the ingestion).
 * - Fields update trigger (0010): only for records already indexed, else the indexer would write
 *   their rows a second time.
 * - Delete: the FTS rows go as before (0010's trigger; none for a record not indexed yet); when the
 *   largest seq goes, the mark is lowered to the largest remaining one, since SQLite reuses the seq of
 *   the last row (as 0009 does for `record_metadata`).
 * SQLite only: PostgreSQL keeps its tsvector triggers (variant: no-op).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`INSERT OR REPLACE INTO search_index_state (name, seq) VALUES ('records_fts', coalesce((SELECT max(seq) FROM records), 0))`.execute(
    db,
  );
  await sql`DROP TRIGGER IF EXISTS records_fts_after_update`.execute(db);
  await sql`CREATE TRIGGER records_fts_after_update AFTER UPDATE OF fields ON records
    WHEN old.seq <= (SELECT seq FROM search_index_state WHERE name = 'records_fts') BEGIN
    DELETE FROM records_fts WHERE rowid BETWEEN old.seq * 1024 AND old.seq * 1024 + 1023;
    INSERT INTO records_fts (rowid, content, field)
      SELECT new.seq * 1024 + (row_number() OVER ()) - 1, j.value, j.key FROM json_each(new.fields) AS j WHERE j.type = 'text' LIMIT 1024;
  END`.execute(db);
  await sql`CREATE TRIGGER records_fts_mark_after_delete AFTER DELETE ON records
    WHEN old.seq <= (SELECT seq FROM search_index_state WHERE name = 'records_fts') BEGIN
    UPDATE search_index_state SET seq = coalesce((SELECT max(seq) FROM records), 0)
      WHERE name = 'records_fts' AND seq > coalesce((SELECT max(seq) FROM records), 0);
  END`.execute(db);
}
