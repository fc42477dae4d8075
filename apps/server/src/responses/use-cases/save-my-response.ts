import { randomUUID } from "node:crypto";
import type { UserRow } from "../../auth/authenticate.js";
import { now } from "../../clock.js";
import type { ChangeDeps } from "../../use-case-deps.js";
import { recordFor } from "../../records/access.js";
import { loadDatasetSchema, type DatasetSchema } from "../../records/dataset-schema.js";
import type { ResponseRow } from "../../records/read.js";
import {
  afterResponseChange,
  checkResponseValues,
  emitResponseChange,
  writeResponse,
  type ResponseStatus,
  type ResponseValues,
} from "../response-writes.js";

/**
 * One item of `POST /me/responses/bulk`: creates or replaces the caller's response to a record they may
 * read; the record status follows. `schemas` caches each dataset's settings across the items of a call.
 */
export async function saveMyResponse(
  { db, events }: ChangeDeps,
  user: UserRow,
  entry: { record_id: string; status: ResponseStatus; values?: ResponseValues },
  schemas: Map<string, DatasetSchema>,
): Promise<ResponseRow> {
  const { record, dataset } = await recordFor(db, user, entry.record_id, "read");
  let schema = schemas.get(dataset.id);
  if (!schema) {
    schema = await loadDatasetSchema(db, dataset);
    schemas.set(dataset.id, schema);
  }
  checkResponseValues(schema, record, entry.status, entry.values);
  const timestamp = now();
  const datasetSchema = schema;
  const { row, created, status } = await db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom("responses")
      .select("id")
      .where("record_id", "=", record.id)
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    const written = await writeResponse(
      trx,
      existing?.id ?? randomUUID(),
      record.id,
      user.id,
      entry.status,
      entry.values,
      timestamp,
      !existing,
    );
    return { row: written, created: !existing, status: await afterResponseChange(trx, datasetSchema, [record.id], timestamp) };
  });
  emitResponseChange(events, created ? "response.created" : "response.updated", row.id, record, status);
  return row;
}
