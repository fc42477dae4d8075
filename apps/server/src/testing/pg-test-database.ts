import { createHash, randomBytes } from "node:crypto";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { migrations } from "../db/migrations/index.js";
import { postgresVariants } from "../db/migrations/postgres/index.js";
import { createPool, openPostgresStore } from "../db/postgres.js";
import type { DB } from "../db/schema.js";
import type { Store } from "../db/store.js";

/**
 * Throw-away PostgreSQL databases for tests (`TESSERA_TEST_DATABASE_URL` names a server and a
 * database to connect to for administration, e.g. `postgres://postgres@127.0.0.1:55432/postgres`).
 * A migrated template database is made once per migration list (under an advisory lock, so parallel
 * test workers share it); every test database is a fresh copy of it (`CREATE DATABASE ... TEMPLATE`).
 */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export const testDatabaseUrl = (): string | null => process.env.TESSERA_TEST_DATABASE_URL || null;

const LOCK_KEY = 7_406_211;

/** The same server's URL with another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function admin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const templateName = (): string => {
  const hash = createHash("sha256")
    .update(
      JSON.stringify(
        [Object.entries(migrations), Object.entries(postgresVariants)].map((list) => list.map(([name, m]) => [name, String(m.up)])),
      ),
    )
    .digest("hex")
    .slice(0, 12);
  return `tessera_tpl_${hash}`;
};

async function ensureTemplate(adminUrl: string): Promise<string> {
  const template = templateName();
  await admin(adminUrl, async (client) => {
    await client.query("select pg_advisory_lock($1)", [LOCK_KEY]);
    try {
      const found = await client.query("select 1 from pg_database where datname = $1", [template]);
      if (found.rowCount) return;
      const building = `${template}_build`;
      await client.query(`drop database if exists ${building} with (force)`);
      await client.query(`create database ${building}`);
      const store = await openPostgresStore(withDatabase(adminUrl, building), { poolSize: 1 });
      await store.close();
      await client.query(`alter database ${building} rename to ${template}`);
    } finally {
      await client.query("select pg_advisory_unlock($1)", [LOCK_KEY]);
    }
  });
  return template;
}

/** Creates a fresh, migrated database; `drop()` removes it (even with connections left open). */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const template = await ensureTemplate(adminUrl);
  const name = `tessera_test_${randomBytes(6).toString("hex")}`;
  await admin(adminUrl, async (client) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`create database ${name} template ${template}`);
        return;
      } catch (error) {
        // Another worker copying the template at the same moment: try again shortly.
        if (attempt >= 20 || !/being accessed by other users/.test(String(error))) throw error;
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  });
  return {
    url: withDatabase(adminUrl, name),
    name,
    drop: () =>
      admin(adminUrl, async (client) => {
        await client.query(`drop database if exists ${name} with (force)`);
      }),
  };
}

/** A store on a fresh database of the test server (`TESSERA_TEST_DATABASE_URL`); `close()` also drops the database. */
export async function openTestPostgresStore(options: { poolSize?: number } = {}): Promise<Store> {
  const database = await createTestDatabase(testDatabaseUrl()!);
  const store = await openPostgresStore(database.url, { poolSize: options.poolSize ?? 4 });
  return {
    ...store,
    close: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/** A table's indexes other than its primary key, by name, "(invalid)" after one a concurrent build left unfinished. */
export async function indexesOf(db: Kysely<DB>, table: string): Promise<string[]> {
  const rows = await sql<{ name: string; valid: boolean }>`SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = ${table}::regclass AND NOT i.indisprimary ORDER BY 1`.execute(db);
  return rows.rows.map((r) => `${r.name}${r.valid ? "" : " (invalid)"}`);
}

/** How many scans the statistics counted on index `name` (they follow a few ms later: poll). */
export async function indexScans(db: Kysely<DB>, name: string): Promise<number> {
  const rows = await sql<{ n: number | string }>`SELECT coalesce(sum(idx_scan), 0) AS n FROM pg_stat_user_indexes
    WHERE indexrelname = ${name}`.execute(db);
  return Number(rows.rows[0]!.n);
}

/** The store's database through a pool of its own whose statements (begin and commit included) are appended to `statements`. */
export function loggedDatabase(store: Store, statements: string[]): Kysely<DB> {
  return new Kysely<DB>({
    dialect: new PostgresDialect({ pool: createPool(store.databaseUrl!, 4) }),
    log: (event) => {
      if (event.level === "query") statements.push(event.query.sql);
    },
  });
}
