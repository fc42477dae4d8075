import type { DatasetRow } from "../../auth/policies.js";
import { unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import type { ChangeDeps } from "../../use-case-deps.js";

/** Publishes a draft dataset that has a field and a required question (422 otherwise). Returns the updated row. */
export async function publishDataset({ db, events }: ChangeDeps, dataset: DatasetRow): Promise<DatasetRow> {
  if (dataset.status === "ready") throw unprocessable("Dataset is already published");
  // At least one field, required or not (the reference server since 2.4: a record needs a value for one of them).
  const field = await db.selectFrom("fields").select("id").where("dataset_id", "=", dataset.id).executeTakeFirst();
  if (!field) throw unprocessable("Dataset cannot be published without fields");
  const requiredQuestion = await db
    .selectFrom("questions")
    .select("id")
    .where("dataset_id", "=", dataset.id)
    .where("required", "=", 1)
    .executeTakeFirst();
  if (!requiredQuestion) throw unprocessable("Dataset cannot be published without required questions");
  const timestamp = now();
  await db.updateTable("datasets").set({ status: "ready", updated_at: timestamp }).where("id", "=", dataset.id).execute();
  events.emit("dataset.published", { datasetId: dataset.id });
  return { ...dataset, status: "ready", updated_at: timestamp };
}
