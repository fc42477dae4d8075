import type { UserRow } from "../../auth/authenticate.js";
import type { DatasetRow } from "../../auth/policies.js";
import type { EventSink } from "../../webhooks/events.js";
import type { ChangeDeps } from "../../use-case-deps.js";
import { ingestRecords, type IngestResult } from "../ingest.js";
import type { RecordItem } from "../input.js";
import { requireAttributableResponses } from "../response-attribution.js";

/**
 * Webhook events of a bulk ingestion: record.created / record.updated, and record.completed for new
 * records that are completed on arrival (their responses were part of the item).
 */
export function emitIngested(events: EventSink, result: IngestResult): void {
  if (result.createdIds.length > 0) events.emit("record.created", { recordIds: result.createdIds });
  if (result.updatedIds.length > 0) events.emit("record.updated", { recordIds: result.updatedIds });
  const created = new Set(result.createdIds);
  const completed = result.items.filter((r) => r.status === "completed" && created.has(r.id)).map((r) => r.id);
  if (completed.length > 0) events.emit("record.completed", { recordIds: completed });
}

/**
 * Creates (or, with "upsert", creates and updates) records of a dataset in one transaction, all or
 * nothing (records/ingest.ts); responses in the items must be attributable to users the caller may
 * answer for. Emits the record events.
 */
export async function importRecords(
  { db, events }: ChangeDeps,
  user: UserRow,
  dataset: DatasetRow,
  items: RecordItem[],
  mode: "create" | "upsert",
): Promise<IngestResult> {
  await requireAttributableResponses(db, user, dataset, items);
  const result = await ingestRecords(db, dataset.id, items, { mode });
  emitIngested(events, result);
  return result;
}
