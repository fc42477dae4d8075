import { type Kysely, sql } from "kysely";

/**
 * `record_metadata`: the records' metadata values, one row per (record, key, value), so that the
 * SQLite search adapter's metadata term and range filters probe an index instead of parsing every
 * record's JSON (`json_each` per record, linear in the dataset: ~180 ms of CPU for the benchmark's
 * filter with its count at 100K records).
 *
 * Values are what `json_each(metadata, '$."key"')` yields: a scalar once, a list (or object) item by
 * item; JSON nulls are left out (no filter matches them). The primary key serves lookups by value
 * within a dataset, `record_metadata_seq_idx` the per-record probes of the search adapter
 * (`EXISTS (... seq = r.seq AND name = ? AND value ...)`) and the triggers.
 *
 * New records are indexed by the search adapter before a metadata filter runs (every record with
 * `seq` above `search_index_state.seq` for `record_metadata`), not by an insert trigger: an AFTER
 * INSERT trigger on `records` makes every insert a statement transaction and slows ingestion (see
 * 0008). Updates of metadata and deletes keep the table exact through triggers; a delete lowers the
 * high-water mark to the largest remaining seq, since SQLite may reuse the seq of the last row.
 * SQLite only: PostgreSQL filters its jsonb directly (variant: no-op).
 */
export const metadataRowsOf = (rec: string, from = "") => `
  SELECT ${rec}.dataset_id, k.key, k.value, ${rec}.seq FROM ${from}json_each(${rec}.metadata) AS k WHERE k.type NOT IN ('array', 'object', 'null')
  UNION ALL
  SELECT ${rec}.dataset_id, k.key, e.value, ${rec}.seq FROM ${from}json_each(${rec}.metadata) AS k, json_each(k.value) AS e WHERE k.type IN ('array', 'object') AND e.type <> 'null'`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE record_metadata (
    dataset_id TEXT NOT NULL,
    name TEXT NOT NULL,
    value ANY NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (dataset_id, name, value, seq)
  ) WITHOUT ROWID`.execute(db);
  await sql`CREATE TABLE search_index_state (name TEXT PRIMARY KEY, seq INTEGER NOT NULL)`.execute(db);
  await sql
    .raw(`INSERT OR IGNORE INTO record_metadata (dataset_id, name, value, seq) ${metadataRowsOf("r", "records AS r, ")}`)
    .execute(db);
  await sql`INSERT INTO search_index_state (name, seq) VALUES ('record_metadata', coalesce((SELECT max(seq) FROM records), 0))`.execute(db);
  await sql`CREATE INDEX record_metadata_seq_idx ON record_metadata (seq, name, value)`.execute(db);
  await sql
    .raw(
      `CREATE TRIGGER record_metadata_after_update AFTER UPDATE OF metadata ON records BEGIN
    DELETE FROM record_metadata WHERE seq = old.seq;
    INSERT OR IGNORE INTO record_metadata (dataset_id, name, value, seq) ${metadataRowsOf("new")};
  END`,
    )
    .execute(db);
  await sql`CREATE TRIGGER record_metadata_after_delete AFTER DELETE ON records BEGIN
    DELETE FROM record_metadata WHERE seq = old.seq;
    UPDATE search_index_state SET seq = coalesce((SELECT max(seq) FROM records), 0)
      WHERE name = 'record_metadata' AND seq > coalesce((SELECT max(seq) FROM records), 0);
  END`.execute(db);
}
