import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { SuggestionRow } from "../read.js";

/** A record's suggestions, oldest first. */
export async function listSuggestions(db: Kysely<DB>, recordId: string): Promise<SuggestionRow[]> {
  return db.selectFrom("suggestions").selectAll().where("record_id", "=", recordId).orderBy("inserted_at").execute();
}
