import { randomUUID } from "node:crypto";
import type { UserRow } from "../../auth/authenticate.js";
import type { DatasetRow } from "../../auth/policies.js";
import { conflict } from "../../http/errors.js";
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

/** The user's response to a record (409 when they already answered it); the record status follows. */
export async function createResponse(
  { db, events }: ChangeDeps,
  user: UserRow,
  record: RecordRow,
  dataset: DatasetRow,
  input: { status: ResponseStatus; values?: ResponseValues },
): Promise<ResponseRow> {
  const schema = await loadDatasetSchema(db, dataset);
  checkResponseValues(schema, record, input.status, input.values);
  const timestamp = now();
  const created = await db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom("responses")
      .select("id")
      .where("record_id", "=", record.id)
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    if (existing) throw conflict(`Response already exists for record with id \`${record.id}\` and by user with id \`${user.id}\``);
    const row = await writeResponse(trx, randomUUID(), record.id, user.id, input.status, input.values, timestamp, true);
    return { row, status: await afterResponseChange(trx, schema, [record.id], timestamp) };
  });
  emitResponseChange(events, "response.created", created.row.id, record, created.status);
  return created.row;
}
