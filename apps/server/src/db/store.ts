import type SQLite from "better-sqlite3";
import type { Kysely } from "kysely";
import type { DB } from "./schema.js";
import type { SqlDialect } from "./dialect.js";
import type { Checkpointer } from "./checkpointer.js";
import type { SearchStructure } from "../search/search-off.js";

/** An open store (embedded SQLite or PostgreSQL): what the adapters and the composition root get. */
export interface Store {
  db: Kysely<DB>;
  dialect: SqlDialect;
  /** The raw embedded connection (SQLite only, else null), for adapters that need SQLite-specific SQL. */
  sqlite: SQLite.Database | null;
  /** The PostgreSQL connection string (PostgreSQL only, else null): pg-boss opens its own pool with it. */
  databaseUrl: string | null;
  /** PostgreSQL: the pgvector extension is installed (vector similarity). Always true on SQLite (sqlite-vec). */
  vectorSearch: boolean;
  /** SQLite: the thread that checkpoints the WAL (db/checkpointer.ts); null on PostgreSQL. */
  checkpointer?: Checkpointer | null;
  close(): Promise<void>;
}

export interface StoreConfig {
  dataDir: string;
  /** `postgres://...` selects PostgreSQL; null keeps the embedded SQLite store in dataDir. */
  databaseUrl?: string | null;
  databasePoolSize?: number;
  /** Embedded store: read threads (search/sqlite-read-pool.ts); default 2, 0 for none. */
  readThreads?: number;
  /** Embedded store: page cache of the request thread's connection, MiB per database file (db/database.ts). */
  sqliteCacheMib?: number;
  /** Embedded store: prefix lengths of the full-text index's prefix index (search/text-index.ts); "" none. */
  textPrefixIndex?: string | undefined;
  /** Embedded store: "bm25" ranks text with FTS5's bm25() instead of the ranking extension (search/rank-extension.ts). */
  textRanking?: "auto" | "bm25" | undefined;
  /** Embedded store: search structures switched off (search/search-off.ts). */
  searchOff?: readonly SearchStructure[] | undefined;
}
