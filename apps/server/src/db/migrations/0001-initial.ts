import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("server_settings")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("username", "text", (c) => c.notNull().unique())
    .addColumn("first_name", "text", (c) => c.notNull())
    .addColumn("last_name", "text")
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("api_key", "text", (c) => c.notNull().unique())
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("workspaces")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("workspaces_users")
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("workspaces_users_pk", ["workspace_id", "user_id"])
    .execute();
  await db.schema.createIndex("workspaces_users_user_idx").on("workspaces_users").column("user_id").execute();

  await db.schema
    .createTable("datasets")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("guidelines", "text")
    .addColumn("allow_extra_metadata", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("status", "text", (c) => c.notNull().defaultTo("draft"))
    .addColumn("distribution", "text", (c) => c.notNull().defaultTo(sql`'{"strategy":"overlap","min_submitted":1}'`))
    .addColumn("metadata", "text")
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id"))
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addColumn("last_activity_at", "text", (c) => c.notNull())
    .addUniqueConstraint("datasets_workspace_name_uq", ["workspace_id", "name"])
    .execute();
}
