import type { Kysely } from "kysely";

/**
 * File uploads in the database (issue 23; transfer/import/upload-store.ts): an upload's state and the
 * rows its import could not store, so that every server replica on one database reads the same
 * progress and failures, whichever replica received the file and whichever runs the import job.
 * Portable (schema builder, text and bigint columns). The uploaded bytes themselves stay on the
 * data directory's disk on SQLite (one server); PostgreSQL keeps them in `upload_chunks` (its variant,
 * postgres/0022-uploads.ts), removed when the import ends.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("uploads")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("filename", "text", (c) => c.notNull())
    .addColumn("format", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("dataset_id", "text", (c) => c.references("datasets.id").onDelete("set null"))
    .addColumn("mapping", "text")
    .addColumn("rows_done", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("rows_stored", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("rows_failed", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("rows_total", "bigint")
    .addColumn("bytes_done", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("cancel_requested", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("error", "text")
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("uploads_status_updated_idx").on("uploads").columns(["status", "updated_at"]).execute();
  await db.schema
    .createTable("upload_failures")
    .addColumn("upload_id", "text", (c) => c.notNull().references("uploads.id").onDelete("cascade"))
    .addColumn("row_no", "bigint", (c) => c.notNull())
    .addColumn("column_name", "text")
    .addColumn("message", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("upload_failures_upload_row_idx").on("upload_failures").columns(["upload_id", "row_no"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("upload_failures").ifExists().execute();
  await db.schema.dropTable("uploads").ifExists().execute();
}
