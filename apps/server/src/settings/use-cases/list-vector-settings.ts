import { type Kysely, sql } from "kysely";
import type { DB } from "../../db/schema.js";
import type { VectorSettingsRow } from "./find-vector-settings.js";

/** The dataset's vector settings in creation order. */
export async function listVectorSettings(db: Kysely<DB>, datasetId: string): Promise<VectorSettingsRow[]> {
  return db
    .selectFrom("vectors_settings")
    .selectAll()
    .where("dataset_id", "=", datasetId)
    .orderBy("inserted_at")
    .orderBy(sql`rowid`)
    .execute();
}
