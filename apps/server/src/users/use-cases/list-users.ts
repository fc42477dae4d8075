import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";

/** Every user, oldest first. */
export async function listUsers(db: Kysely<DB>): Promise<UserRow[]> {
  return db.selectFrom("users").selectAll().orderBy("inserted_at").orderBy("username").execute();
}
