import type { Kysely } from "kysely";

/**
 * OAuth sign-in (issue 8): pending authorization requests (single-use, short-lived state) and the
 * link between a provider identity (provider + subject) and a Tessera user.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("oauth_states")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("code_verifier", "text", (c) => c.notNull())
    .addColumn("nonce", "text")
    .addColumn("redirect_uri", "text", (c) => c.notNull())
    .addColumn("redirect_to", "text")
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("oauth_states_expires_at").on("oauth_states").column("expires_at").execute();

  await db.schema
    .createTable("oauth_identities")
    .addColumn("provider", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("inserted_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("oauth_identities_pk", ["provider", "subject"])
    .execute();
  await db.schema.createIndex("oauth_identities_user_id").on("oauth_identities").column("user_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("oauth_identities").execute();
  await db.schema.dropTable("oauth_states").execute();
}
