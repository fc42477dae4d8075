import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";

/**
 * The vector of a dataset's record for one vector setting (similarity from a record): the values,
 * or why there are none (the record is not in the dataset, or it has no vector for that setting).
 * One statement for both, and the stored float32 values as they are: a search needs no shortest
 * decimals (decodeVector's ~380 `toPrecision` calls cost ~0.6 ms of the request thread per similarity
 * call at 1M on PostgreSQL, two statements another ~0.3 ms).
 */
export async function referenceVector(
  db: Kysely<DB>,
  datasetId: string,
  recordId: string,
  settingsId: string,
): Promise<number[] | "no-record" | "no-vector"> {
  const row = await db
    .selectFrom("records as r")
    .leftJoin("record_vectors as v", (join) => join.onRef("v.record_id", "=", "r.id").on("v.vector_settings_id", "=", settingsId))
    .select("v.vector")
    .where("r.id", "=", recordId)
    .where("r.dataset_id", "=", datasetId)
    .executeTakeFirst();
  if (!row) return "no-record";
  if (!row.vector) return "no-vector";
  const blob = row.vector;
  return Array.from(new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength)));
}
