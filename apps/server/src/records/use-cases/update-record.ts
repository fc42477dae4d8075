import type { UserRow } from "../../auth/authenticate.js";
import type { DatasetRow } from "../../auth/policies.js";
import { unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import type { ChangeDeps } from "../../use-case-deps.js";
import { loadDatasetSchema } from "../dataset-schema.js";
import { prepareSuggestions, upsertSuggestions, upsertVectors } from "../ingest.js";
import type { RecordOut, RecordRow } from "../read.js";
import { RecordValueError, validateMetadata, validateVectors } from "../values.js";
import type { RecordUpdate } from "../input.js";
import { readRecord } from "./read-record.js";

/**
 * Changes a record's metadata (when `metadataSent`, null clears it), replaces its suggestions and upserts
 * its vectors, all checked against the dataset's settings first (422). Returns the record as read back.
 */
export async function updateRecord(
  { db, events }: ChangeDeps,
  user: UserRow,
  dataset: DatasetRow,
  record: RecordRow,
  input: RecordUpdate,
  metadataSent: boolean,
): Promise<RecordOut> {
  const schema = await loadDatasetSchema(db, dataset);
  const fields = JSON.parse(record.fields) as Record<string, unknown>;
  let suggestions: ReturnType<typeof prepareSuggestions> = [];
  try {
    validateMetadata(schema, input.metadata);
    if (input.suggestions) suggestions = prepareSuggestions(schema, input.suggestions, fields);
    validateVectors(schema, input.vectors);
  } catch (error) {
    if (error instanceof RecordValueError) throw unprocessable(error.message);
    throw error;
  }
  const timestamp = now();
  await db.transaction().execute(async (trx) => {
    const changes: { updated_at: string; metadata?: string | null } = { updated_at: timestamp };
    if (metadataSent) changes.metadata = input.metadata ? JSON.stringify(input.metadata) : null;
    await trx.updateTable("records").set(changes).where("id", "=", record.id).execute();
    if (input.suggestions !== undefined) {
      await trx.deleteFrom("suggestions").where("record_id", "=", record.id).execute();
      await upsertSuggestions(
        trx,
        suggestions.map((s) => ({ recordId: record.id, ...s })),
        timestamp,
      );
    }
    if (input.vectors) {
      await upsertVectors(
        trx,
        schema,
        Object.entries(input.vectors).map(([name, values]) => ({ recordId: record.id, name, values })),
      );
    }
  });
  const updated = await db.selectFrom("records").selectAll().where("id", "=", record.id).executeTakeFirstOrThrow();
  events.emit("record.updated", { recordIds: [record.id] });
  return readRecord(db, user, dataset, updated, schema);
}
