import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { newApiKey } from "../../auth/api-keys.js";
import { now } from "../../clock.js";
import { findUser } from "./find-user.js";

/** Gives the user a new API key; the old one stops working at once. Returns the stored row and the key, shown this once. */
export async function regenerateApiKey(db: Kysely<DB>, user: UserRow): Promise<{ user: UserRow; apiKey: string }> {
  const apiKey = newApiKey();
  await db.updateTable("users").set({ api_key: apiKey.stored, updated_at: now() }).where("id", "=", user.id).execute();
  return { user: await findUser(db, user.id), apiKey: apiKey.key };
}
