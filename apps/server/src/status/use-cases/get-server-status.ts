import type { Store } from "../../db/store.js";
import { databaseStatus, isDatabaseUnavailable } from "../../db/availability.js";
import { sqliteSearchFor } from "../../search/sqlite-search.js";
import { textRankingOf } from "../../search/rank-extension.js";
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

/** On the embedded store, the similarity work done on the read threads so far (tools/bench and the end-to-end tests read it). */
function searchThreads(store: StatusStore) {
  if (store.dialect !== "sqlite" || !store.db) return {};
  const search = sqliteSearchFor(store.db);
  // And what is left of the search's background work (tools/bench: search ready after an import).
  return { search_threads: search.threadWork(), search_pending: search.pendingWork() };
}

/**
 * What answers text and vector search on this store (the search port's adapter); on the embedded store also how
 * text is ranked (`text_ranking`: `tessera_bm25`, the ranking extension, or `bm25` with the reason, search/rank-extension.ts).
 */
export function searchEngine(store: Pick<Store, "dialect" | "vectorSearch"> & Partial<Pick<Store, "db">>): {
  name: string;
  vector_search: boolean;
  text_ranking?: { function: string; reason?: string };
} {
  const engine = { name: store.dialect === "postgres" ? "postgresql-tsvector" : "sqlite-fts5", vector_search: store.vectorSearch };
  if (store.dialect !== "sqlite" || !store.db) return engine;
  const ranking = textRankingOf(store.db);
  return { ...engine, text_ranking: { function: ranking.scoring, ...(ranking.reason ? { reason: ranking.reason } : {}) } };
}

/**
 * GET /api/v1/status (`signedIn` checks the caller's credentials): the version for everyone; for signed-in users also the search engine, memory
 * figures (with the search structures' bytes on the embedded store) and, when the store is given, whether the database answers now (reachable, latency).
 * During a database outage nobody's credentials can be checked: a caller who sends some is told
 * only whether the database answers (`database: {reachable}`, which every other route's 503 tells
 * anyone anyway), without the error text (it may name the database's host) or other figures.
 */
export async function getServerStatus(store: StatusStore, signedIn: () => Promise<boolean>) {
  let caller: "signed-in" | "anonymous" | "unchecked";
  try {
    caller = (await signedIn()) ? "signed-in" : "anonymous";
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    caller = "unchecked";
  }
  if (caller === "anonymous") return { version: SERVER_VERSION };
  if (caller === "unchecked") {
    if (!store.db) return { version: SERVER_VERSION };
    return { version: SERVER_VERSION, database: { reachable: (await databaseStatus(store.db)).reachable } };
  }
  const status = { version: SERVER_VERSION, search_engine: searchEngine(store), memory: memory(store), ...searchThreads(store) };
  if (!store.db) return status;
  return { ...status, database: { dialect: store.dialect, ...(await databaseStatus(store.db)) } };
}
