import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";

/** Deletes the listed suggestions of a record (ids of other records are left alone). */
export async function deleteRecordSuggestions(db: Kysely<DB>, recordId: string, ids: string[]): Promise<void> {
  await db.deleteFrom("suggestions").where("record_id", "=", recordId).where("id", "in", ids).execute();
}
