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

/**
 * Many records of `datasetId` at once (500 an insert), each with its `text` and `context` fields, metadata and status,
 * indexed for text search, their external ids starting with `prefix-`: their ids, in order.
 */
export async function addTextRecords(
  db: Kysely<DB>,
  datasetId: string,
  records: { text: string; context: string; metadata?: Record<string, unknown> | null; status?: "pending" | "completed" }[],
  prefix = "r",
): Promise<string[]> {
  const ts = "2024-01-01T00:00:00";
  const rows = records.map((r) => ({
    id: randomUUID(),
    dataset_id: datasetId,
    external_id: `${prefix}-${randomUUID()}`,
    fields: JSON.stringify({ text: r.text, context: r.context }),
    metadata: r.metadata ? JSON.stringify(r.metadata) : null,
    status: r.status ?? "pending",
    inserted_at: ts,
    updated_at: ts,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await db
      .insertInto("records")
      .values(rows.slice(i, i + 500))
      .execute();
  await indexRecordTexts(db);
  return rows.map((r) => r.id);
}

/** addTextRecords, each record with its place in `records` and its seq: in the order given. */
export async function addTextRecordsWithSeqs(
  db: Kysely<DB>,
  datasetId: string,
  records: Parameters<typeof addTextRecords>[2],
  prefix = "r",
): Promise<{ i: number; id: string; seq: number }[]> {
  const ids = await addTextRecords(db, datasetId, records, prefix);
  const rows = await db.selectFrom("records").select(["id", "seq"]).where("id", "in", ids).execute();
  const seqOf = new Map(rows.map((r) => [r.id, Number(r.seq)]));
  return ids.map((id, i) => ({ i, id, seq: seqOf.get(id)! }));
}
