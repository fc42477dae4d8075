import type { DatasetRow } from "../../auth/policies.js";
import { now } from "../../clock.js";
import type { ChangeDeps } from "../../use-case-deps.js";
import { loadDatasetSchema } from "../../records/dataset-schema.js";
import type { RecordRow, ResponseRow } from "../../records/read.js";
import {
  afterResponseChange,
  checkResponseValues,
  emitResponseChange,
  writeResponse,
  type ResponseStatus,
  type ResponseValues,
} from "../response-writes.js";

/**
 * Replaces a response's status and values; with `expectedUpdatedAt` only when nobody changed it since
 * (412 otherwise). The record status follows.
 */
export async function updateResponse(
  { db, events }: ChangeDeps,
  response: ResponseRow,
  record: RecordRow,
  dataset: DatasetRow,
  input: { status: ResponseStatus; values?: ResponseValues },
  expectedUpdatedAt: string | null,
): Promise<ResponseRow> {
  const schema = await loadDatasetSchema(db, dataset);
  checkResponseValues(schema, record, input.status, input.values);
  const timestamp = now();
  const updated = await db.transaction().execute(async (trx) => {
    const row = await writeResponse(
      trx,
      response.id,
      record.id,
      response.user_id,
      input.status,
      input.values,
      timestamp,
      false,
      expectedUpdatedAt,
    );
    return { row, status: await afterResponseChange(trx, schema, [record.id], timestamp) };
  });
  emitResponseChange(events, "response.updated", updated.row.id, record, updated.status);
  return updated.row;
}
