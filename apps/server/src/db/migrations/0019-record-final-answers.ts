import type { Kysely } from "kysely";

/**
 * Final answers of the review workflow (issue 22): one per record, written by an owner or admin,
 * stored apart from the annotators' responses (which are never overwritten). `values` is JSON in
 * the responses' wire shape `{question: {"value": V}}`. Portable on both dialects (schema builder,
 * text columns); rows go with their record (cascade) and keep their answer when the reviewer's
 * account is deleted (reviewer set to null).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("record_final_answers")
    .addColumn("record_id", "text", (c) => c.primaryKey().references("records.id").onDelete("cascade"))
    .addColumn("dataset_id", "text", (c) => c.notNull().references("datasets.id").onDelete("cascade"))
    .addColumn("values", "text", (c) => c.notNull())
    .addColumn("reviewer_id", "text", (c) => c.references("users.id").onDelete("set null"))
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("record_final_answers_dataset_idx").on("record_final_answers").column("dataset_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("record_final_answers").ifExists().execute();
}
