import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { notFound } from "../../http/errors.js";

/** Loads a user (404 ``User with id `X` not found``). */
export async function findUser(db: Kysely<DB>, id: string): Promise<UserRow> {
  const user = await db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  if (!user) throw notFound(`User with id \`${id}\` not found`);
  return user;
}
