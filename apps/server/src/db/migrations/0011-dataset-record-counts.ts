import { type Kysely, sql } from "kysely";

/**
 * `dataset_record_counts`: the number of records per dataset and record status, so that the
 * annotator's queue total, the dataset progress and the caller's metrics read a few rows instead of
 * counting the dataset's records through `records_dataset_status_seq_idx` (linear: 70-90 ms of CPU
 * per call at 1M records). Read with records/counts.ts.
 *
 * SQLite: exact for the records up to the `search_index_state` mark 'dataset_record_counts' (one row
 * per dataset and status, updated in place: one writer, no contention); the records above the mark
 * (the latest imports) are counted by the reader in the index and folded in from time to time. No
 * insert trigger: any AFTER INSERT trigger makes each record insert a statement transaction, which
 * cost 5-20 us per record of ingestion (measured: ingestRecords with and without one; see also 0008).
 * Updates of status / dataset and deletes of records at or below the mark adjust the counts by
 * trigger; a delete lowers the mark to the largest remaining seq, since SQLite reuses the seq of the
 * last row (as in 0009). The delete trigger only updates an existing row: during a dataset's cascade
 * the row may already be gone (its own foreign key cascade), and re-creating it would violate that
 * key. The PostgreSQL variant (postgres/0011) appends deltas from statement-level triggers instead.
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
  await sql`INSERT OR REPLACE INTO search_index_state (name, seq) VALUES ('dataset_record_counts', coalesce((SELECT max(seq) FROM records), 0))`.execute(
    db,
  );
  const counted = (rec: string) => `${rec}.seq <= (SELECT seq FROM search_index_state WHERE name = 'dataset_record_counts')`;
  await sql
    .raw(
      `CREATE TRIGGER dataset_record_counts_after_delete AFTER DELETE ON records BEGIN
    UPDATE dataset_record_counts SET n = n - 1 WHERE dataset_id = old.dataset_id AND status = old.status AND ${counted("old")};
    UPDATE search_index_state SET seq = coalesce((SELECT max(seq) FROM records), 0)
      WHERE name = 'dataset_record_counts' AND seq > coalesce((SELECT max(seq) FROM records), 0);
  END`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER dataset_record_counts_after_update AFTER UPDATE OF dataset_id, status ON records
    WHEN (old.status IS NOT new.status OR old.dataset_id IS NOT new.dataset_id) AND ${counted("old")} BEGIN
    UPDATE dataset_record_counts SET n = n - 1 WHERE dataset_id = old.dataset_id AND status = old.status;
    INSERT INTO dataset_record_counts (dataset_id, status, n) VALUES (new.dataset_id, new.status, 1)
      ON CONFLICT (dataset_id, status) DO UPDATE SET n = n + 1;
  END`,
    )
    .execute(db);
  await sql`CREATE INDEX suggestions_question_agent_idx ON suggestions (question_id, agent)`.execute(db);
  await sql`DROP INDEX suggestions_question_idx`.execute(db);
}
