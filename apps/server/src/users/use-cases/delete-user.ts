import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { type Batches, deleteInBatches } from "../../db/delete-in-batches.js";
import { unprocessable } from "../../http/errors.js";

/**
 * Deletes a user and their responses (records are owned by datasets, not users), the responses in batches
 * (db/delete-in-batches.ts: an annotator of a 1M-record dataset may have answered 100K of them); nobody deletes
 * themself (422).
 */
export async function deleteUser(db: Kysely<DB>, user: UserRow, current: UserRow, batch?: Batches): Promise<void> {
  if (user.id === current.id) throw unprocessable("You cannot delete your own user");
  await deleteInBatches(db, { table: "responses", column: "user_id", key: "id", value: user.id }, "users", batch);
}
