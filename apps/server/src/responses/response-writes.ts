import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { HttpError, unprocessable } from "../http/errors.js";
import type { DatasetSchema } from "../records/dataset-schema.js";
import type { RecordRow, ResponseRow } from "../records/read.js";
import { refreshRecordStatuses } from "../records/status.js";
import { RecordValueError, validateResponseValues } from "../records/values.js";
import type { EventSink } from "../webhooks/events.js";

export type ResponseStatus = "submitted" | "draft" | "discarded";
export type ResponseValues = Record<string, unknown> | null | undefined;

/** The shared steps of the response use cases: value checks, the write, the record status, the events. */
export function checkResponseValues(schema: DatasetSchema, record: RecordRow, status: ResponseStatus, values: ResponseValues): void {
  try {
    validateResponseValues(
      schema,
      status,
      values as Record<string, { value: unknown }> | null | undefined,
      JSON.parse(record.fields) as Record<string, unknown>,
    );
  } catch (error) {
    if (error instanceof RecordValueError) throw unprocessable(error.message);
    throw error;
  }
}

/** After any response change: the record status (3.13) and the dataset's last activity (3.4). Returns the record's new status. */
export async function afterResponseChange(
  db: Kysely<DB>,
  schema: DatasetSchema,
  recordIds: string[],
  timestamp: string,
): Promise<RecordRow["status"] | undefined> {
  await refreshRecordStatuses(db, recordIds, schema.minSubmitted);
  await touchDataset(db, schema.dataset.id, timestamp);
  return (await db.selectFrom("records").select("status").where("id", "=", recordIds[0]!).executeTakeFirst())?.status;
}

/** How far behind the latest response change a dataset's `last_activity_at` may be. */
export const LAST_ACTIVITY_RESOLUTION_MS = 1000;

/**
 * The dataset's last activity (contract: touched on response create/update/delete), written only when
 * it is older than LAST_ACTIVITY_RESOLUTION_MS: on PostgreSQL every response write of a dataset
 * would otherwise queue on the dataset's row lock until the previous writer commits (50 annotators
 * submitting at once: 12 ms of waiting per submit, the busiest statement of the team bench); a write
 * that finds the row recent enough takes no lock.
 */
async function touchDataset(db: Kysely<DB>, datasetId: string, timestamp: string): Promise<void> {
  const staleBefore = new Date(Date.parse(timestamp) - LAST_ACTIVITY_RESOLUTION_MS).toISOString();
  await db
    .updateTable("datasets")
    .set({ last_activity_at: timestamp })
    .where("id", "=", datasetId)
    .where("last_activity_at", "<", staleBefore)
    .execute();
}

/** Webhook events of a response change: the response event, record.updated (status recomputed), record.completed when it just became completed. */
export function emitResponseChange(
  events: EventSink,
  type: "response.created" | "response.updated",
  responseId: string,
  record: RecordRow,
  status: RecordRow["status"] | undefined,
): void {
  events.emit(type, { responseId });
  events.emit("record.updated", { recordIds: [record.id] });
  if (status === "completed" && record.status !== "completed") events.emit("record.completed", { recordIds: [record.id] });
}

/**
 * Inserts (`create`) or updates a response and reads it back. With `expectedUpdatedAt`, the update happens
 * only when the stored `updated_at` is that one (412 otherwise).
 */
export async function writeResponse(
  db: Kysely<DB>,
  id: string,
  recordId: string,
  userId: string,
  status: ResponseStatus,
  values: ResponseValues,
  timestamp: string,
  create: boolean,
  expectedUpdatedAt: string | null = null,
): Promise<ResponseRow> {
  const stored = values === undefined || values === null ? null : JSON.stringify(values);
  if (create) {
    await db
      .insertInto("responses")
      .values({ id, record_id: recordId, user_id: userId, status, values: stored, inserted_at: timestamp, updated_at: timestamp })
      .execute();
  } else {
    let update = db.updateTable("responses").set({ status, values: stored, updated_at: timestamp }).where("id", "=", id);
    // the precondition is part of the UPDATE itself, so two writers racing on both stores see exactly one winner
    if (expectedUpdatedAt !== null) update = update.where("updated_at", "=", expectedUpdatedAt);
    const result = await update.executeTakeFirst();
    if (expectedUpdatedAt !== null && Number(result.numUpdatedRows) === 0) {
      throw new HttpError(412, { detail: `Response with id \`${id}\` was changed after ${expectedUpdatedAt}` });
    }
  }
  return db.selectFrom("responses").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}
