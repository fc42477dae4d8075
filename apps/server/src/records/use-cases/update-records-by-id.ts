import { unprocessable } from "../../http/errors.js";
import type { ChangeDeps } from "../../use-case-deps.js";
import { ingestRecords } from "../ingest.js";
import type { RecordItem } from "../input.js";
import { emitIngested } from "./import-records.js";

/**
 * The legacy `PATCH /datasets/{id}/records`: updates existing records matched by id only (metadata
 * replaced when sent, suggestions upserted per question, vectors per name; fields never change). Every
 * id must be a record of the dataset and appear once (422 otherwise, upstream's messages).
 */
export async function updateRecordsById({ db, events }: ChangeDeps, datasetId: string, items: RecordItem[]): Promise<void> {
  const ids = items.map((i) => i.id as string);
  if (new Set(ids).size !== ids.length) throw unprocessable("Found duplicate records IDs");
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom("records")
      .select("id")
      .where("dataset_id", "=", datasetId)
      .where("id", "in", ids.slice(i, i + 500))
      .execute();
    for (const row of rows) found.add(row.id);
  }
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) throw unprocessable(`Found records that do not exist: ${missing.join(", ")}`);
  const result = await ingestRecords(db, datasetId, items, { mode: "upsert" });
  emitIngested(events, result);
}
