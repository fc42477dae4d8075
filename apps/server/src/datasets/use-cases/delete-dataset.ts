import type { DatasetRow } from "../../auth/policies.js";
import { tableExists } from "../../db/introspect.js";
import type { ChangeDeps } from "../../use-case-deps.js";

/**
 * Records deleted per transaction. The embedded store has one writer: one transaction over a whole dataset held every
 * other dataset's writes (an annotator's Submit) for as long as it ran — 1.3 s at 20K records (~65 µs a record with
 * its responses, suggestions, vectors, text index and counters; load 5), so ~65 s at 1M. A batch of 1,000 holds them
 * ~65 ms; on PostgreSQL it keeps each transaction's locks and WAL short as well.
 */
export const DELETE_BATCH = 1_000;

/**
 * Deletes a dataset with its records, their responses, suggestions and vectors, and its settings. The records go in
 * batches of short transactions (other requests run between two), the dataset row with the last ones: a deletion cut
 * short (the server stopped) leaves the dataset with fewer records, which a second deletion finishes.
 */
export async function deleteDataset({ db, events }: ChangeDeps, dataset: DatasetRow, batch = DELETE_BATCH): Promise<void> {
  // Records (and, through their foreign keys, responses/suggestions/vectors) go explicitly in case a later table
  // forgets its cascade; settings tables cascade from datasets (migration 0002).
  const hasRecords = await tableExists(db, "records");
  for (;;) {
    const done = await db.transaction().execute(async (trx) => {
      if (hasRecords) {
        const [deleted] = await trx
          .deleteFrom("records")
          .where("id", "in", (eb) => eb.selectFrom("records").select("id").where("dataset_id", "=", dataset.id).limit(batch))
          .execute();
        // A full batch: there may be more (records another request adds meanwhile go too, in a later batch).
        if (Number(deleted?.numDeletedRows ?? 0) >= batch) return false;
      }
      await trx.deleteFrom("datasets").where("id", "=", dataset.id).execute();
      return true;
    });
    if (done) break;
    // Let the requests that waited for the connection (the embedded store's writer) run before the next batch.
    await new Promise((resolve) => setImmediate(resolve));
  }
  events.emit("dataset.deleted", { id: dataset.id });
}
