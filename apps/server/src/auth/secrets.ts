import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";

/**
 * The signing secret: from the environment when set (every replica shares it), else generated once
 * and persisted in the database, so it survives restarts and is never a shipped default.
 */
export async function loadSigningSecret(db: Kysely<DB>, fromEnv: string | null): Promise<string> {
  if (fromEnv) return fromEnv;
  const row = await db.selectFrom("server_settings").select("value").where("key", "=", "auth_secret_key").executeTakeFirst();
  if (row) return row.value;
  const secret = randomBytes(48).toString("base64url");
  await db
    .insertInto("server_settings")
    .values({ key: "auth_secret_key", value: secret })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const stored = await db.selectFrom("server_settings").select("value").where("key", "=", "auth_secret_key").executeTakeFirstOrThrow();
  return stored.value;
}

export const generatePassword = (): string => randomBytes(12).toString("base64url");
