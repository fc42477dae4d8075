import type { Store } from "../../db/store.js";
import { databaseStatus } from "../../db/availability.js";
import { sqliteSearchFor } from "../../search/sqlite-search.js";
import { SERVER_VERSION } from "../server-version.js";

export type StatusStore = Pick<Store, "dialect" | "vectorSearch"> & Partial<Pick<Store, "db">>;

/**
 * The process's memory (all threads: `rss`; the request thread's V8 heap: `heapTotal`, `heapUsed`)
 * and, on the embedded store, the bytes of the search's in-memory structures (tools/bench reports them).
 */
function memory(store: StatusStore) {
  const usage = process.memoryUsage();
  if (store.dialect !== "sqlite" || !store.db) return usage;
  return { ...usage, search: sqliteSearchFor(store.db).memoryBytes() };
}

/** What answers text and vector search on this store (the search port's adapter). */
export function searchEngine(store: Pick<Store, "dialect" | "vectorSearch">): { name: string; vector_search: boolean } {
  return { name: store.dialect === "postgres" ? "postgresql-tsvector" : "sqlite-fts5", vector_search: store.vectorSearch };
}

/**
 * GET /api/v1/status: the version for everyone; for signed-in users also the search engine, memory
 * figures (with the search structures' bytes on the embedded store) and, when the store is given, whether the database answers now (reachable, latency).
 */
export async function getServerStatus(store: StatusStore, signedIn: boolean) {
  if (!signedIn) return { version: SERVER_VERSION };
  const status = { version: SERVER_VERSION, search_engine: searchEngine(store), memory: memory(store) };
  if (!store.db) return status;
  return { ...status, database: { dialect: store.dialect, ...(await databaseStatus(store.db)) } };
}
