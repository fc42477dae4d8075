import { mkdirSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { Kysely, SqliteDialect } from "kysely";
import { Migrator } from "kysely/migration";
import type { DB } from "./schema.js";
import { migrationProvider } from "./migrations/index.js";
import { postgresMigrationProvider } from "./migrations/postgres/index.js";
import { dialectOf, type SqlDialect } from "./dialect.js";
import { Checkpointer, FALLBACK_AUTOCHECKPOINT } from "./checkpointer.js";
import { withStatementCache } from "./statement-cache.js";
import { onRecordsWritten } from "../records/write-hooks.js";
import { attachTextIndex, registerTextIndex, TextIndex } from "../search/text-index.js";

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
}

/** Opens the configured store (PostgreSQL when databaseUrl is set, else embedded SQLite) and migrates it. */
export async function openStore(config: StoreConfig): Promise<Store> {
  if (config.databaseUrl) {
    const { openPostgresStore } = await import("./postgres.js");
    return openPostgresStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  }
  return openEmbeddedStore(config.dataDir);
}

const rawConnections = new WeakMap<object, SQLite.Database>();

/**
 * The better-sqlite3 connection behind an embedded store's Kysely instance (null on PostgreSQL or
 * for a Kysely instance not opened by openEmbeddedStore), for hot paths that run prepared statements
 * directly; use it only inside a Kysely transaction of that instance, synchronously (the Kysely
 * transaction holds the single connection, so nothing else interleaves).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Kysely instance, whatever its table types
export const rawSqliteOf = (db: Kysely<any>): SQLite.Database | null => rawConnections.get(db) ?? null;

/** Opens (creating when needed) the embedded store in dataDir and applies pending migrations. */
export async function openEmbeddedStore(dataDir: string): Promise<Store> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, "tessera.db");
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqliteVec.load(sqlite);
  // Kysely compiles each query it runs: the cache keeps them compiled (db/statement-cache.ts).
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  rawConnections.set(db, sqlite);
  await migrate(db);
  // The full-text index: a file of its own, written by a thread of its own (search/text-index.ts).
  const ftsFile = join(dataDir, "tessera-fts.db");
  attachTextIndex(sqlite, ftsFile);
  const textIndex = new TextIndex(sqlite, { mainFile: file, ftsFile }, (error) => { console.error("text index: background indexing failed", error); });
  registerTextIndex(db, textIndex);
  onRecordsWritten(db, (written) => textIndex.noteWrite(written.created, written.datasetId));
  // Checkpoints off the request thread (db/checkpointer.ts); the connection's own stays as a safety net.
  const checkpointer = new Checkpointer(file, (message) => { console.error(`WAL checkpoint thread: ${message}`); });
  sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT}`);
  return {
    db, dialect: "sqlite", sqlite, databaseUrl: null, vectorSearch: true, checkpointer,
    close: async () => { await textIndex.stop(); await checkpointer?.close(); await db.destroy(); },
  };
}

export async function migrate(db: Kysely<DB>): Promise<void> {
  const provider = dialectOf(db) === "postgres" ? postgresMigrationProvider : migrationProvider;
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ""} failed: ${String(error)}`, { cause: error });
  }
}
