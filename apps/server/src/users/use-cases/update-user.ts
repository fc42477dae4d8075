import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { hashPassword } from "../../auth/passwords.js";
import { isUniqueViolation } from "../../db/introspect.js";
import { unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import { findUser } from "./find-user.js";

export interface UserChanges {
  first_name?: string;
  last_name?: string | null;
  username?: string;
  role?: UserRow["role"];
  password?: string;
}

/** An update to a taken username is a validation error (422), as on the reference server; a create is a conflict (409). */
const takenUsername = (name: string) => unprocessable(`User username \`${name}\` is not unique`);

/** Updates a user; a new password or role ends the user's sessions. Returns the stored row. */
export async function updateUser(db: Kysely<DB>, user: UserRow, input: UserChanges): Promise<UserRow> {
  if (input.username !== undefined && input.username !== user.username) {
    const taken = await db.selectFrom("users").select("id").where("username", "=", input.username).executeTakeFirst();
    if (taken) throw takenUsername(input.username);
  }
  const changes: Partial<UserRow> = { updated_at: now() };
  if (input.first_name !== undefined) changes.first_name = input.first_name;
  if (input.last_name !== undefined) changes.last_name = input.last_name;
  if (input.username !== undefined) changes.username = input.username;
  if (input.role !== undefined) changes.role = input.role;
  if (input.password !== undefined) changes.password_hash = await hashPassword(input.password);
  // A new password or role ends the user's sessions: tokens issued before carry the old version.
  const endSessions = input.password !== undefined || (input.role !== undefined && input.role !== user.role);
  try {
    await db
      .updateTable("users")
      .set((eb) => (endSessions ? { ...changes, session_version: eb("session_version", "+", 1) } : changes))
      .where("id", "=", user.id)
      .execute();
  } catch (error) {
    if (isUniqueViolation(error) && input.username !== undefined) throw takenUsername(input.username);
    throw error;
  }
  return findUser(db, user.id);
}
