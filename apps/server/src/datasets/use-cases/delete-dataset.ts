import type { DatasetRow } from "../../auth/policies.js";
import { type Batches, deleteInBatches } from "../../db/delete-in-batches.js";
import type { ChangeDeps } from "../../use-case-deps.js";

/**
 * Deletes a dataset with its records, their responses, suggestions and vectors, and its settings: the records in
 * batches (db/delete-in-batches.ts: other datasets' writes run between two), the dataset row with the last ones
 * (settings tables cascade from datasets, migration 0002).
 */
export async function deleteDataset({ db, events }: ChangeDeps, dataset: DatasetRow, batch?: Batches): Promise<void> {
  await deleteInBatches(db, { table: "records", column: "dataset_id", key: "id", value: dataset.id }, "datasets", batch);
  events.emit("dataset.deleted", { id: dataset.id });
}
