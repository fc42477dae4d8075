import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { now } from "../../clock.js";
import type { VectorSettingsRow } from "./find-vector-settings.js";

/** Changes the title of vector settings. Returns the updated row. */
export async function updateVectorSettings(
  db: Kysely<DB>,
  vectorSettings: VectorSettingsRow,
  input: { title?: string },
): Promise<VectorSettingsRow> {
  const changes: Partial<VectorSettingsRow> = { updated_at: now() };
  if (input.title !== undefined) changes.title = input.title;
  await db.updateTable("vectors_settings").set(changes).where("id", "=", vectorSettings.id).execute();
  return { ...vectorSettings, ...changes };
}
