import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { indexRecordTexts } from "../records/ingest.js";

/** A pending record of `datasetId` with a `text` field and its `context` (`text` + " context"), indexed for text search: its id. */
export async function addTextRecord(
  db: Kysely<DB>,
  datasetId: string,
  text: string,
  metadata: Record<string, unknown> | null = null,
): Promise<string> {
  const id = randomUUID();
  const ts = "2024-01-01T00:00:00";
  await db
    .insertInto("records")
    .values({
      id,
      dataset_id: datasetId,
      external_id: `r-${id}`,
      fields: JSON.stringify({ text, context: `${text} context` }),
      metadata: metadata ? JSON.stringify(metadata) : null,
      status: "pending",
      inserted_at: ts,
      updated_at: ts,
    })
    .execute();
  await indexRecordTexts(db);
  return id;
}
