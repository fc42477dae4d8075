import type { Kysely } from "kysely";
import { hashApiKey, isHashedApiKey } from "../../auth/api-keys.js";

/**
 * Issue 28, finding 7 (portable: SQLite and PostgreSQL run it as is):
 * - `users.session_version`: every token carries the version it was issued under; changing a
 *   user's password or role bumps it, so their earlier tokens stop at once (auth/sessions.ts).
 * - `users.api_key` holds the SHA-256 digest of the key from now on (auth/api-keys.ts): the clear
 *   keys of an existing database are replaced by their digests here, and keep working.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("session_version", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  const users = db as unknown as Kysely<{ users: { id: string; api_key: string } }>;
  const rows = await users.selectFrom("users").select(["id", "api_key"]).execute();
  for (const row of rows) {
    if (!isHashedApiKey(row.api_key))
      await users
        .updateTable("users")
        .set({ api_key: hashApiKey(row.api_key) })
        .where("id", "=", row.id)
        .execute();
  }
}
