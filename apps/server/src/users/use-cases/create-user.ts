import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { hashPassword } from "../../auth/passwords.js";
import { newApiKey } from "../../auth/api-keys.js";
import { writeUnique } from "../../db/introspect.js";
import { conflict } from "../../http/errors.js";
import { now } from "../../clock.js";

export interface UserInput {
  /** Chosen by the client (the SDK sends `User(id=...)`'s id); a new one when absent. */
  id?: string | null;
  first_name: string;
  last_name: string | null;
  username: string;
  role: UserRow["role"];
  password: string;
}

const duplicateUsername = (name: string) => conflict(`User username \`${name}\` is not unique`);

/** Creates a user (409 for a taken username or id). Returns the row and the API key, shown this once (only its digest is stored). */
export async function createUser(db: Kysely<DB>, input: UserInput): Promise<{ user: UserRow; apiKey: string }> {
  const existing = await db.selectFrom("users").select("id").where("username", "=", input.username).executeTakeFirst();
  if (existing) throw duplicateUsername(input.username);
  if (input.id && (await db.selectFrom("users").select("id").where("id", "=", input.id.toLowerCase()).executeTakeFirst()))
    throw conflict(`User with id \`${input.id}\` already exists`);
  const timestamp = now();
  const apiKey = newApiKey();
  const row: UserRow = {
    id: input.id?.toLowerCase() ?? randomUUID(),
    username: input.username,
    first_name: input.first_name,
    last_name: input.last_name,
    role: input.role,
    password_hash: await hashPassword(input.password),
    api_key: apiKey.stored,
    session_version: 0,
    inserted_at: timestamp,
    updated_at: timestamp,
  };
  await writeUnique(
    () => db.insertInto("users").values(row).execute(),
    () => duplicateUsername(input.username),
  );
  return { user: row, apiKey: apiKey.key };
}
