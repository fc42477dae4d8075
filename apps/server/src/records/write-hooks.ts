import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";

/** A committed write of records to a dataset (the bulk calls and the Hub import). */
export interface RecordsWritten {
  datasetId: string;
  created: number;
}
export type RecordsWrittenListener = (written: RecordsWritten) => void;

const listeners = new WeakMap<object, RecordsWrittenListener[]>();

/**
 * The work that follows record writes, per store (one Kysely instance): the deferred full-text
 * indexer (search/text-index.ts), the PostgreSQL planner statistics (db/planner-statistics.ts) and the
 * in-memory similarity codes (search/sqlite-knn.ts) subscribe where the store is put together.
 * Listeners run synchronously after the commit and must not throw (they schedule their work).
 */
export function onRecordsWritten(db: Kysely<DB>, listener: RecordsWrittenListener): void {
  const list = listeners.get(db);
  if (list) list.push(listener);
  else listeners.set(db, [listener]);
}

/** Tells the store's listeners that records were committed. */
export function recordsWritten(db: Kysely<DB>, written: RecordsWritten): void {
  for (const listener of listeners.get(db) ?? []) listener(written);
}
