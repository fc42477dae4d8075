import type { Kysely, Selectable } from "kysely";
import type { DB, VectorsSettingsTable } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { datasetFor, type DatasetRow } from "../../auth/policies.js";
import { notFound } from "../../http/errors.js";

export type VectorSettingsRow = Selectable<VectorsSettingsTable>;

/** Loads vector settings (404 ``Vector settings with id `X` not found``) and checks access to their dataset. */
export async function findVectorSettings(
  db: Kysely<DB>,
  user: UserRow,
  id: string,
  access: "read" | "admin",
): Promise<{ vectorSettings: VectorSettingsRow; dataset: DatasetRow }> {
  const vectorSettings = await db.selectFrom("vectors_settings").selectAll().where("id", "=", id).executeTakeFirst();
  if (!vectorSettings) throw notFound(`Vector settings with id \`${id}\` not found`);
  return { vectorSettings, dataset: await datasetFor(db, user, vectorSettings.dataset_id, access) };
}
