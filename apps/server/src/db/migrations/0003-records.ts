import { type Kysely, sql } from "kysely";

/**
 * Records, responses, suggestions, record vectors and the SQLite full-text index (issue 3, part 2).
 *
 * - `records.seq` is the INTEGER PRIMARY KEY (SQLite rowid): it gives stable insertion-order paging
 *   (`dataset_id, seq` index) and keys the FTS rows. `records.id` (uuid) is unique and is what the
 *   API and the foreign keys use.
 * - `records_fts` holds one FTS5 row per text field of a record, rowid = seq * 1024 + position, so
 *   deleting a record (directly or through the dataset's cascade) removes its rows by rowid range
 *   in a trigger. Text fields are never updated (contract 3.10), the update trigger is a safety net.
 * - `record_vectors` is one table keyed by (vector_settings_id, record_id), float32 blobs, scanned
 *   with sqlite-vec's `vec_distance_cosine`; foreign keys cascade from records and vector settings.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("records")
    .addColumn("seq", "integer", (c) => c.primaryKey())
    .addColumn("id", "text", (c) => c.notNull().unique())
    .addColumn("dataset_id", "text", (c) => c.notNull().references("datasets.id").onDelete("cascade"))
    .addColumn("external_id", "text")
    .addColumn("fields", "text", (c) => c.notNull())
    .addColumn("metadata", "text")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("records_dataset_external_id_uq", ["dataset_id", "external_id"])
    .execute();
  await db.schema.createIndex("records_dataset_seq_idx").on("records").columns(["dataset_id", "seq"]).execute();
  await db.schema.createIndex("records_dataset_status_seq_idx").on("records").columns(["dataset_id", "status", "seq"]).execute();

  await db.schema
    .createTable("responses")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("record_id", "text", (c) => c.notNull().references("records.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("values", "text")
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("responses_record_user_uq", ["record_id", "user_id"])
    .execute();
  await db.schema.createIndex("responses_user_record_idx").on("responses").columns(["user_id", "record_id"]).execute();

  await db.schema
    .createTable("suggestions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("record_id", "text", (c) => c.notNull().references("records.id").onDelete("cascade"))
    .addColumn("question_id", "text", (c) => c.notNull().references("questions.id").onDelete("cascade"))
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("score", "text")
    .addColumn("agent", "text")
    .addColumn("type", "text")
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("suggestions_record_question_uq", ["record_id", "question_id"])
    .execute();
  await db.schema.createIndex("suggestions_question_idx").on("suggestions").column("question_id").execute();

  await sql`CREATE TABLE record_vectors (
    vector_settings_id TEXT NOT NULL REFERENCES vectors_settings(id) ON DELETE CASCADE,
    record_id TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE,
    vector BLOB NOT NULL,
    PRIMARY KEY (vector_settings_id, record_id)
  ) WITHOUT ROWID`.execute(db);
  await db.schema.createIndex("record_vectors_record_idx").on("record_vectors").column("record_id").execute();

  await sql`CREATE VIRTUAL TABLE records_fts USING fts5(content, field UNINDEXED, tokenize = 'unicode61 remove_diacritics 2')`.execute(db);
  await sql`CREATE TRIGGER records_fts_after_insert AFTER INSERT ON records BEGIN
    INSERT INTO records_fts(rowid, content, field)
      SELECT new.seq * 1024 + (row_number() OVER ()) - 1, j.value, j.key FROM json_each(new.fields) AS j WHERE j.type = 'text' LIMIT 1024;
  END`.execute(db);
  await sql`CREATE TRIGGER records_fts_after_delete AFTER DELETE ON records BEGIN
    DELETE FROM records_fts WHERE rowid BETWEEN old.seq * 1024 AND old.seq * 1024 + 1023;
  END`.execute(db);
  await sql`CREATE TRIGGER records_fts_after_update AFTER UPDATE OF fields ON records BEGIN
    DELETE FROM records_fts WHERE rowid BETWEEN old.seq * 1024 AND old.seq * 1024 + 1023;
    INSERT INTO records_fts(rowid, content, field)
      SELECT new.seq * 1024 + (row_number() OVER ()) - 1, j.value, j.key FROM json_each(new.fields) AS j WHERE j.type = 'text' LIMIT 1024;
  END`.execute(db);
}
