import type { DatasetRow } from "../../auth/policies.js";
import { now } from "../../clock.js";
import type { ChangeDeps } from "../../use-case-deps.js";
import { loadDatasetSchema } from "../../records/dataset-schema.js";
import type { ResponseRow } from "../../records/read.js";
import { afterResponseChange } from "../response-writes.js";

/** Deletes a response; the record status follows. */
export async function deleteResponse({ db, events }: ChangeDeps, response: ResponseRow, dataset: DatasetRow): Promise<void> {
  const schema = await loadDatasetSchema(db, dataset);
  const timestamp = now();
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("responses").where("id", "=", response.id).execute();
    await afterResponseChange(trx, schema, [response.record_id], timestamp);
  });
  events.emit("response.deleted", { id: response.id });
  events.emit("record.updated", { recordIds: [response.record_id] });
}
