import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { minSubmittedOf } from "./dataset-schema.js";
import { isPostgres } from "../db/dialect.js";

/**
 * Record status under the overlap distribution (contract 3.13): `completed` when the record has at
 * least `min_submitted` submitted responses, else `pending`.
 */
const statusExpression = (minSubmitted: number) =>
  sql<
    "pending" | "completed"
  >`CASE WHEN (SELECT count(*) FROM responses WHERE responses.record_id = records.id AND responses.status = 'submitted') >= ${minSubmitted} THEN 'completed' ELSE 'pending' END`;

export async function refreshRecordStatuses(db: Kysely<DB>, recordIds: string[], minSubmitted: number): Promise<void> {
  for (let i = 0; i < recordIds.length; i += 500) {
    // PostgreSQL (read committed): two answers of one record committed at once would each count only
    // their own and leave it pending for good; locking the rows first makes the count below see the
    // other's committed answer (called inside the transaction that wrote the responses).
    if (isPostgres(db))
      await db
        .selectFrom("records")
        .select("id")
        .where("id", "in", recordIds.slice(i, i + 500))
        .orderBy("id")
        .forNoKeyUpdate()
        .execute();
    await db
      .updateTable("records")
      .set({ status: statusExpression(minSubmitted) })
      .where("id", "in", recordIds.slice(i, i + 500))
      .execute();
  }
}

/** Recomputes every record of a dataset, e.g. after its distribution changed (call it from PATCH /datasets/{id}). */
export async function refreshDatasetRecordStatuses(db: Kysely<DB>, datasetId: string): Promise<void> {
  const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", datasetId).executeTakeFirst();
  if (!dataset) return;
  await db
    .updateTable("records")
    .set({ status: statusExpression(minSubmittedOf(dataset)) })
    .where("dataset_id", "=", datasetId)
    .execute();
}
