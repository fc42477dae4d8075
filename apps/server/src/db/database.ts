import { mkdirSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { Kysely, SqliteDialect, type SqliteDatabase } from "kysely";
import type { DB } from "./schema.js";
import { migrate } from "./migrate.js";
import type { Store, StoreConfig } from "./store.js";
import { Checkpointer, FALLBACK_AUTOCHECKPOINT } from "./checkpointer.js";
import { withStatementCache } from "./statement-cache.js";
import { onRecordsWritten } from "../records/write-hooks.js";
import { attachTextIndex, registerTextIndex, TextIndex } from "../search/text-index.js";
import { registerReadPool, ReadPool } from "../search/sqlite-read-pool.js";
import { loadRankExtension, registerTextRanking } from "../search/rank-extension.js";
import { registerSearchOff, type SearchStructure } from "../search/search-off.js";

export type { Store, StoreConfig } from "./store.js";
export { migrate } from "./migrate.js";

/** Opens the configured store (PostgreSQL when databaseUrl is set, else embedded SQLite) and migrates it. */
export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.databaseUrl) {
    const { openPostgresStore } = await import("./postgres.js");
    return openPostgresStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  }
  return openEmbeddedStore(config.dataDir, {
    readThreads: config.readThreads,
    cacheMib: config.sqliteCacheMib,
    textPrefixIndex: config.textPrefixIndex,
    textRanking: config.textRanking,
    searchOff: config.searchOff,
  });
}

const rawConnections = new WeakMap<object, SQLite.Database>();
const cachedConnections = new WeakMap<object, SqliteDatabase>();

/**
 * The better-sqlite3 connection behind an embedded store's Kysely instance (null on PostgreSQL or
 * for a Kysely instance not opened by openEmbeddedStore), for hot paths that run prepared statements
 * directly; use it only inside a Kysely transaction of that instance, synchronously (the Kysely
 * transaction holds the single connection, so nothing else interleaves).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Kysely instance, whatever its table types
export const rawSqliteOf = (db: Kysely<any>): SQLite.Database | null => rawConnections.get(db) ?? null;

/**
 * The same connection as Kysely's dialect sees it, with its compiled-statement cache
 * (db/statement-cache.ts): for hot paths that run Kysely-compiled SQL directly, under the same rules
 * as `rawSqliteOf`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Kysely instance, whatever its table types
export const cachedSqliteOf = (db: Kysely<any>): SqliteDatabase | null => cachedConnections.get(db) ?? null;

/**
 * SQLite page cache of the request thread's connection, MiB per database file (the store and the
 * text index): what it saves is a read from the operating system's cache (a page ~1-2 µs), what it
 * costs is resident memory (docs/performance.md, "Memory"). `TESSERA_SQLITE_CACHE_MIB` overrides it.
 */
export const CACHE_MIB = 8;

/** Opens (creating when needed) the embedded store in dataDir and applies pending migrations. */
export async function openEmbeddedStore(
  dataDir: string,
  options: {
    readThreads?: number | undefined;
    cacheMib?: number | undefined;
    textPrefixIndex?: string | undefined;
    /** "bm25": no ranking extension (search/rank-extension.ts); "auto" (default): loaded when built. */
    textRanking?: "auto" | "bm25" | undefined;
    /** Search structures switched off (search/search-off.ts): the plain path answers instead. */
    searchOff?: readonly SearchStructure[] | undefined;
    /** Records the text indexer may be behind the writes before a writer waits for it (search/text-index.ts MAX_BEHIND; tests). */
    textMaxBehind?: number | undefined;
  } = {},
): Promise<Store> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, "tessera.db");
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqliteVec.load(sqlite);
  // FTS5's bm25 without its whole-table counts (search/rank-extension.ts), or bm25() when not built.
  const ranking = loadRankExtension(sqlite, options.textRanking);
  // Kysely compiles each query it runs: the cache keeps them compiled (db/statement-cache.ts).
  const cached = withStatementCache(sqlite);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: cached }) });
  rawConnections.set(db, sqlite);
  registerTextRanking(db, ranking);
  registerSearchOff(db, options.searchOff ?? []);
  cachedConnections.set(db, cached);
  await migrate(db);
  // The full-text index: a file of its own, written by a thread of its own (search/text-index.ts).
  const ftsFile = join(dataDir, "tessera-fts.db");
  attachTextIndex(sqlite, ftsFile, options.textPrefixIndex);
  // Page caches: better-sqlite3's default is 16 MB per database file and connection (32 MB here).
  const cacheKib = (options.cacheMib ?? CACHE_MIB) * 1024;
  sqlite.pragma(`main.cache_size = -${cacheKib}`);
  sqlite.pragma(`fts.cache_size = -${cacheKib}`);
  const textIndex = new TextIndex(
    sqlite,
    { mainFile: file, ftsFile },
    (error) => {
      console.error("text index: background indexing failed", error);
    },
    options.textMaxBehind,
  );
  registerTextIndex(db, textIndex);
  // Reads off the request thread (search/sqlite-read-pool.ts): text matches not cached yet, least similar's far side and candidates.
  const readPool = new ReadPool({ mainFile: file, ftsFile }, options.readThreads, ranking.file);
  if (readPool.size > 0) registerReadPool(db, readPool);
  onRecordsWritten(db, (written) => textIndex.noteWrite(written.created, written.datasetId));
  // Checkpoints off the request thread (db/checkpointer.ts); the connection's own stays as a safety net.
  const checkpointer = new Checkpointer(file, (message) => {
    console.error(`WAL checkpoint thread: ${message}`);
  });
  sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT}`);
  return {
    db,
    dialect: "sqlite",
    sqlite,
    databaseUrl: null,
    vectorSearch: true,
    checkpointer,
    close: async () => {
      await textIndex.stop();
      await readPool.close();
      await checkpointer?.close();
      await db.destroy();
    },
  };
}
