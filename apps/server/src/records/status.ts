import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { minSubmittedOf } from "./dataset-schema.js";

/**
 * Record status under the overlap distribution (contract 3.13): `completed` when the record has at
 * least `min_submitted` submitted responses, else `pending`.
 */
const statusExpression = (minSubmitted: number) =>
  sql<"pending" | "completed">`CASE WHEN (SELECT count(*) FROM responses WHERE responses.record_id = records.id AND responses.status = 'submitted') >= ${minSubmitted} THEN 'completed' ELSE 'pending' END`;

export async function refreshRecordStatuses(db: Kysely<DB>, recordIds: string[], minSubmitted: number): Promise<void> {
  for (let i = 0; i < recordIds.length; i += 500) {
    await db.updateTable("records").set({ status: statusExpression(minSubmitted) }).where("id", "in", recordIds.slice(i, i + 500)).execute();
  }
}

/** Recomputes every record of a dataset, e.g. after its distribution changed (call it from PATCH /datasets/{id}). */
export async function refreshDatasetRecordStatuses(db: Kysely<DB>, datasetId: string): Promise<void> {
  const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", datasetId).executeTakeFirst();
  if (!dataset) return;
  await db.updateTable("records").set({ status: statusExpression(minSubmittedOf(dataset)) }).where("dataset_id", "=", datasetId).execute();
}
