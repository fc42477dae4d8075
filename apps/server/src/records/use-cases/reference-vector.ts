import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { decodeVector } from "../read.js";

/**
 * The vector of a dataset's record for one vector setting (similarity from a record): the values,
 * or why there are none (the record is not in the dataset, or it has no vector for that setting).
 */
export async function referenceVector(
  db: Kysely<DB>,
  datasetId: string,
  recordId: string,
  settingsId: string,
): Promise<number[] | "no-record" | "no-vector"> {
  const record = await db
    .selectFrom("records")
    .select("id")
    .where("id", "=", recordId)
    .where("dataset_id", "=", datasetId)
    .executeTakeFirst();
  if (!record) return "no-record";
  const stored = await db
    .selectFrom("record_vectors")
    .select("vector")
    .where("record_id", "=", recordId)
    .where("vector_settings_id", "=", settingsId)
    .executeTakeFirst();
  return stored ? decodeVector(stored.vector) : "no-vector";
}
