import type { Kysely } from "kysely";

/**
 * Background jobs of the embedded store's in-process queue (Hub import, later exports).
 * `status`: queued | started | finished | failed (the RQ names of contract 3.14).
 * `payload` and `result` are JSON; `error` is the failure message; `run_after` delays retries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("result", "text")
    .addColumn("error", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_attempts", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("run_after", "text", (c) => c.notNull())
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("jobs_status_run_after_idx").on("jobs").columns(["status", "run_after"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("jobs").ifExists().execute();
}
