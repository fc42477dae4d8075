import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { VectorSettingsRow } from "./find-vector-settings.js";

/** Deletes vector settings (their stored vectors cascade). */
export async function deleteVectorSettings(db: Kysely<DB>, vectorSettings: VectorSettingsRow): Promise<void> {
  await db.deleteFrom("vectors_settings").where("id", "=", vectorSettings.id).execute();
}
