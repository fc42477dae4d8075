import { type Kysely, sql } from "kysely";
import type { DB } from "../../db/schema.js";
import type { FieldRow } from "./find-field.js";

/** The dataset's fields in creation order. */
export async function listFields(db: Kysely<DB>, datasetId: string): Promise<FieldRow[]> {
  return db
    .selectFrom("fields")
    .selectAll()
    .where("dataset_id", "=", datasetId)
    .orderBy("inserted_at")
    .orderBy(sql`rowid`)
    .execute();
}
