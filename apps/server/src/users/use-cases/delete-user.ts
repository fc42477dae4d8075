import { type Kysely, sql } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { tableExists } from "../../db/introspect.js";
import { unprocessable } from "../../http/errors.js";

/** Deletes a user and their responses (records are owned by datasets, not users); nobody deletes themself (422). */
export async function deleteUser(db: Kysely<DB>, user: UserRow, current: UserRow): Promise<void> {
  if (user.id === current.id) throw unprocessable("You cannot delete your own user");
  await db.transaction().execute(async (trx) => {
    if (await tableExists(trx, "responses")) await sql`delete from responses where user_id = ${user.id}`.execute(trx);
    await trx.deleteFrom("users").where("id", "=", user.id).execute();
  });
}
