import { type Kysely, sql } from "kysely";

/**
 * `dataset_answer_versions`: a number that changes whenever a response of a dataset is written or
 * deleted (with its record, too), kept by triggers so that every writer (the routes, the bulk
 * ingestion's prepared statements, cascades) moves it without knowing of it. The agreement figures
 * of a dataset are cached under it (review/agreement-cache.ts): a new, changed or deleted response
 * makes the next call compute them again, on whichever replica. Read as
 * `max(version) WHERE dataset_id = ?` (one row per dataset here; the PostgreSQL variant appends).
 *
 * SQLite: one row per dataset, updated in place (one writer). No foreign key: during a dataset's
 * cascade the triggers would write a row for a dataset already gone. A response trigger finds its
 * dataset through its record, which a record's cascade has already deleted: the record's own delete
 * trigger counts for those.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE dataset_answer_versions (dataset_id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID`.execute(db);
  const bump = (datasetOf: string) =>
    `INSERT INTO dataset_answer_versions (dataset_id, version) ${datasetOf}
       ON CONFLICT (dataset_id) DO UPDATE SET version = version + 1;`;
  const viaRecord = (row: string) => bump(`SELECT dataset_id, 1 FROM records WHERE id = ${row}.record_id`);
  await sql
    .raw(`CREATE TRIGGER dataset_answer_versions_response_insert AFTER INSERT ON responses BEGIN ${viaRecord("new")} END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER dataset_answer_versions_response_update AFTER UPDATE ON responses BEGIN ${viaRecord("new")} END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER dataset_answer_versions_response_delete AFTER DELETE ON responses BEGIN ${viaRecord("old")} END`)
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER dataset_answer_versions_record_delete AFTER DELETE ON records BEGIN ${bump("VALUES (old.dataset_id, 1)")} END`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ["response_insert", "response_update", "response_delete", "record_delete"])
    await sql.raw(`DROP TRIGGER IF EXISTS dataset_answer_versions_${t}`).execute(db);
  await sql`DROP TABLE IF EXISTS dataset_answer_versions`.execute(db);
}
