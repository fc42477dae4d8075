import { mkdirSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { Kysely, SqliteDialect } from "kysely";
import { Migrator } from "kysely/migration";
import type { DB } from "./schema.js";
import { migrationProvider } from "./migrations/index.js";

export interface Store {
  db: Kysely<DB>;
  /** The raw embedded connection, for search adapters that need SQLite-specific SQL. */
  sqlite: SQLite.Database;
  close(): Promise<void>;
}

/** Opens (creating when needed) the embedded store in dataDir and applies pending migrations. */
export async function openEmbeddedStore(dataDir: string): Promise<Store> {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(join(dataDir, "tessera.db"));
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqliteVec.load(sqlite);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
  await migrate(db);
  return { db, sqlite, close: async () => { await db.destroy(); } };
}

export async function migrate(db: Kysely<DB>): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(`Database migration ${failed?.migrationName ?? ""} failed: ${String(error)}`);
  }
}
