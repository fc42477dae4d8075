import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../authenticate.js";
import { verifyPassword } from "../passwords.js";
import { unauthorized } from "../../http/errors.js";

/** The user with this username and password, or the contract's 401. */
export async function signIn(db: Kysely<DB>, username: string, password: string): Promise<UserRow> {
  const user = await db.selectFrom("users").selectAll().where("username", "=", username).executeTakeFirst();
  // Verify even for unknown users would leak timing less; argon2 verify on a missing hash is skipped for speed.
  if (!user || !(await verifyPassword(user.password_hash, password))) throw unauthorized();
  return user;
}
