import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { hashPassword } from "../auth/passwords.js";
import { generatePassword } from "../auth/secrets.js";
import { newApiKey } from "../auth/api-keys.js";
import { now } from "../clock.js";

export interface OwnerBootstrap {
  username: string;
  password: string | null;
  apiKey: string;
  generated: boolean;
}

/**
 * On first start with no users, creates the owner account. The password comes from
 * TESSERA_OWNER_PASSWORD or is generated; the caller prints a generated one once.
 * Returns null when users already exist.
 */
export async function bootstrapOwner(db: Kysely<DB>, username: string, password: string | null): Promise<OwnerBootstrap | null> {
  const existing = await db.selectFrom("users").select("id").limit(1).executeTakeFirst();
  if (existing) return null;
  const finalPassword = password ?? generatePassword();
  const apiKey = newApiKey();
  const timestamp = now();
  await db
    .insertInto("users")
    .values({
      id: randomUUID(),
      username,
      first_name: username,
      last_name: null,
      role: "owner",
      password_hash: await hashPassword(finalPassword),
      api_key: apiKey.stored,
      inserted_at: timestamp,
      updated_at: timestamp,
    })
    .execute();
  return { username, password: password ? null : finalPassword, apiKey: apiKey.key, generated: password === null };
}
