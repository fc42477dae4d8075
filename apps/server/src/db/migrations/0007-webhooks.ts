import type { Kysely } from "kysely";

/**
 * Webhooks (contract 3.16): where events are delivered. `events` is a JSON array of event names,
 * `enabled` 0/1, `secret` the Standard Webhooks signing secret (base64). Portable on both dialects.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhooks")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("events", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("description", "text")
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("webhooks_inserted_at_idx").on("webhooks").column("inserted_at").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("webhooks").ifExists().execute();
}
