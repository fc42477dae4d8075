import type { Kysely } from "kysely";

/**
 * Dataset settings: fields, questions, metadata properties and vector settings (contract 3.5-3.8).
 * `settings` columns hold JSON exactly in the wire shape the API returns (e.g. `{"type": "text", "use_markdown": false}`).
 * `metadata_properties.allowed_roles` is a JSON array: `["admin","annotator"]` or `["admin"]`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("fields")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("dataset_id", "text", (c) => c.notNull().references("datasets.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("required", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("settings", "text", (c) => c.notNull())
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("fields_dataset_name_uq", ["dataset_id", "name"])
    .execute();

  await db.schema
    .createTable("questions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("dataset_id", "text", (c) => c.notNull().references("datasets.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("required", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("settings", "text", (c) => c.notNull())
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("questions_dataset_name_uq", ["dataset_id", "name"])
    .execute();

  await db.schema
    .createTable("metadata_properties")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("dataset_id", "text", (c) => c.notNull().references("datasets.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("settings", "text", (c) => c.notNull())
    .addColumn("allowed_roles", "text", (c) => c.notNull())
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("metadata_properties_dataset_name_uq", ["dataset_id", "name"])
    .execute();

  await db.schema
    .createTable("vectors_settings")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("dataset_id", "text", (c) => c.notNull().references("datasets.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("dimensions", "integer", (c) => c.notNull())
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addUniqueConstraint("vectors_settings_dataset_name_uq", ["dataset_id", "name"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ["vectors_settings", "metadata_properties", "questions", "fields"]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
