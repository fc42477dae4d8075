import type { ChangeDeps } from "../../use-case-deps.js";

/** Deletes the listed records of a dataset (ids of other datasets are left alone); emits record.deleted for those deleted. */
export async function deleteRecords({ db, events }: ChangeDeps, datasetId: string, ids: string[]): Promise<void> {
  const deleted = await db.deleteFrom("records").where("dataset_id", "=", datasetId).where("id", "in", ids).returning("id").execute();
  if (deleted.length > 0) events.emit("record.deleted", { ids: deleted.map((r) => r.id) });
}
