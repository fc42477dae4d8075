import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { RecordRow } from "../read.js";

/** The stored rows of these records (any order; unknown ids are left out). */
export async function recordRowsByIds(db: Kysely<DB>, ids: string[]): Promise<RecordRow[]> {
  return ids.length ? db.selectFrom("records").selectAll().where("id", "in", ids).execute() : [];
}
