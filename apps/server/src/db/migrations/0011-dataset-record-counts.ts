import { type Kysely, sql } from "kysely";

/**
 * `dataset_record_counts`: the number of records per dataset and record status, kept exact by
 * triggers on `records`, so that the annotator's queue total, the dataset progress and the
 * caller's metrics read two rows instead of counting the dataset's records through
 * `records_dataset_status_seq_idx` (linear: ~70-90 ms of CPU per call at 1M records).
 *
 * SQLite: one row per (dataset, status), updated in place (one writer, so no contention). The
 * insert trigger only touches this small table: the FTS rows are written by the ingestion after
 * the batch's records (0008), so the statement transaction the trigger implies no longer makes
 * FTS5 flush per record. The delete trigger only updates an existing row: during a dataset's
 * cascade the row may already be gone (its own foreign key cascade), and re-creating it would
 * violate that key. The PostgreSQL variant (postgres/0011) appends deltas instead.
 *
 * Also: `suggestions_question_agent_idx` (question_id, agent) replaces `suggestions_question_idx`
 * (question_id): the same lookups by question, plus a loose scan of a question's distinct agents
 * (the suggestion agents the annotation page asks for on opening, routes/search.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE dataset_record_counts (
    dataset_id TEXT NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (dataset_id, status)
  ) WITHOUT ROWID`.execute(db);
  await sql`INSERT INTO dataset_record_counts (dataset_id, status, n)
    SELECT dataset_id, status, count(*) FROM records WHERE true GROUP BY dataset_id, status`.execute(db);
  await sql`CREATE TRIGGER dataset_record_counts_after_insert AFTER INSERT ON records BEGIN
    INSERT INTO dataset_record_counts (dataset_id, status, n) VALUES (new.dataset_id, new.status, 1)
      ON CONFLICT (dataset_id, status) DO UPDATE SET n = n + 1;
  END`.execute(db);
  await sql`CREATE TRIGGER dataset_record_counts_after_delete AFTER DELETE ON records BEGIN
    UPDATE dataset_record_counts SET n = n - 1 WHERE dataset_id = old.dataset_id AND status = old.status;
  END`.execute(db);
  await sql`CREATE TRIGGER dataset_record_counts_after_update AFTER UPDATE OF dataset_id, status ON records
    WHEN old.status IS NOT new.status OR old.dataset_id IS NOT new.dataset_id BEGIN
    UPDATE dataset_record_counts SET n = n - 1 WHERE dataset_id = old.dataset_id AND status = old.status;
    INSERT INTO dataset_record_counts (dataset_id, status, n) VALUES (new.dataset_id, new.status, 1)
      ON CONFLICT (dataset_id, status) DO UPDATE SET n = n + 1;
  END`.execute(db);
  await sql`CREATE INDEX suggestions_question_agent_idx ON suggestions (question_id, agent)`.execute(db);
  await sql`DROP INDEX suggestions_question_idx`.execute(db);
}
