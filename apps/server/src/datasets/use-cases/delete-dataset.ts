import { sql } from "kysely";
import type { DatasetRow } from "../../auth/policies.js";
import { tableExists } from "../../db/introspect.js";
import type { ChangeDeps } from "../../use-case-deps.js";

/** Deletes a dataset with its records, their responses, suggestions and vectors, and its settings. */
export async function deleteDataset({ db, events }: ChangeDeps, dataset: DatasetRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Records (and, through their foreign keys, responses/suggestions/vectors) go explicitly in case a
    // later table forgets its cascade; settings tables cascade from datasets (migration 0002).
    if (await tableExists(trx, "records")) await sql`delete from records where dataset_id = ${dataset.id}`.execute(trx);
    await trx.deleteFrom("datasets").where("id", "=", dataset.id).execute();
  });
  events.emit("dataset.deleted", { id: dataset.id });
}
