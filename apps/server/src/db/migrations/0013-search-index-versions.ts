import { type Kysely, sql } from "kysely";

/**
 * `search_index_versions`: a per-dataset counter bumped by triggers whenever a record's metadata
 * changes or a record is deleted, so that the search adapter's in-memory metadata columns
 * (search/sqlite-metadata.ts) know when to reload a dataset. New records need no trigger: they are
 * caught up by seq, as `record_metadata` is (an AFTER INSERT trigger on `records` would slow the
 * ingestion, see 0008). An update that leaves the metadata as it was does not count.
 * SQLite only: PostgreSQL filters its jsonb directly (variant: no-op).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE search_index_versions (dataset_id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID`.execute(db);
  const bump = (dataset: string) =>
    `INSERT INTO search_index_versions (dataset_id, version) VALUES (${dataset}, 1) ON CONFLICT (dataset_id) DO UPDATE SET version = version + 1;`;
  await sql
    .raw(
      `CREATE TRIGGER search_index_versions_after_update AFTER UPDATE OF metadata, dataset_id ON records
    WHEN old.metadata IS NOT new.metadata OR old.dataset_id IS NOT new.dataset_id BEGIN
    ${bump("old.dataset_id")}
    ${bump("new.dataset_id")}
  END`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER search_index_versions_after_delete AFTER DELETE ON records BEGIN
    ${bump("old.dataset_id")}
  END`,
    )
    .execute(db);
}
