import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { sql, type Kysely } from "kysely";
import type { DB } from "./schema.js";
import { closedPort } from "../testing/closed-port.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from "../testing/pg-test-database.js";
import Fastify from "fastify";
import { installErrorHandler } from "../http/errors.js";
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable, POOL_BUSY_MESSAGE } from "./availability.js";
import { createPool, openPostgresStore, postgresKysely, preparePostgres, probePgvector, StoreStartupError } from "./postgres.js";

describe("the pgvector check at start (PGlite)", () => {
  it("passes where pgvector builds and queries the IVFFlat index by inner product on halfvec, with no HNSW at all", async () => {
    const store = await openPgliteStore();
    try {
      expect(store.vectorSearch).toBe(true);
      expect(await probePgvector(store.db)).toBeNull();
      // Similarity no longer uses HNSW (session 18): a pgvector without it passes.
      await dropOperatorClass(store.db, "vector_cosine_ops", "hnsw");
      expect(await probePgvector(store.db)).toBeNull();
    } finally {
      await store.close();
    }
  }, 60_000);

  it("refuses to start with the reason when the extension is installed but cannot build the IVFFlat index by inner product on halfvec", async () => {
    const store = await openPgliteStore();
    try {
      // A pgvector without the access method's operator class similarity uses (as one whose vector.so dies on this CPU).
      await dropOperatorClass(store.db, "halfvec_ip_ops", "ivfflat");
      expect(await probePgvector(store.db)).toBe(
        'building or querying an IVFFlat index on halfvec by inner product failed (operator class "halfvec_ip_ops" does not exist for access method "ivfflat")',
      );
      const refused = await preparePostgres(store.db).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StoreStartupError);
      expect((refused as Error).message).toMatch(
        /^Tessera cannot start: the PostgreSQL extension pgvector \("vector"\) is installed in this database but does not work: building or querying an IVFFlat index on halfvec by inner product failed/,
      );
      expect((refused as Error).message).toContain("Illegal instruction");
    } finally {
      await store.close();
    }
  }, 60_000);
});

async function dropOperatorClass(db: Kysely<DB>, opclass: string, method: string): Promise<void> {
  await sql.raw(`alter extension vector drop operator family ${opclass} using ${method}`).execute(db);
  await sql.raw(`alter extension vector drop operator class ${opclass} using ${method}`).execute(db);
  await sql.raw(`drop operator family ${opclass} using ${method}`).execute(db);
}

describe("a PostgreSQL without pgvector at start (PGlite)", () => {
  it("starts with similarity search off and says why, with the database's own error", async () => {
    const store = await openPgliteStore({ pgvector: false });
    try {
      expect(store.vectorSearch).toBe(false);
      const prepared = await preparePostgres(store.db);
      expect(prepared.vectorSearch).toBe(false);
      expect(prepared.vectorSearchOff).toMatch(
        /^PostgreSQL: similarity search is off: the extension pgvector \("vector"\) is not installed in this database \(CREATE EXTENSION vector: .*vector.*\)\./,
      );
      expect(prepared.vectorSearchOff).toContain("docs/deployment.md");
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe("the pgvector check at start (PostgreSQL)", () => {
  it.skipIf(!testDatabaseUrl())("is skipped, with a warning, for a role that may not create temporary tables", async () => {
    const database = await createTestDatabase(testDatabaseUrl()!);
    const owner = new pg.Client({ connectionString: database.url });
    await owner.connect();
    const role = `no_temp_${Date.now().toString(36)}`;
    try {
      await owner.query(`create role ${role} login`);
      await owner.query(`revoke temporary on database ${database.name} from public`);
      const url = new URL(database.url);
      url.username = role;
      const db = postgresKysely(createPool(url.toString(), 1));
      try {
        expect(await probePgvector(db)).toBeNull();
      } finally {
        await db.destroy();
      }
    } finally {
      await owner.end();
      await database.drop();
      await admin(async (client) => {
        await client.query(`drop role if exists ${role}`);
      });
    }
  });
});

describe("a PostgreSQL that cannot be reached at start", () => {
  it("is waited for, then refused with a clear message", async () => {
    const port = await closedPort();
    const started = Date.now();
    const error = await openPostgresStore(`postgres://tessera@127.0.0.1:${port}/tessera`, { startTimeoutMs: 1200 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreStartupError);
    expect((error as Error).message).toBe(
      `Tessera cannot start: PostgreSQL at 127.0.0.1:${port}/tessera is not reachable (connect ECONNREFUSED 127.0.0.1:${port}); gave up after 1 s. Check DATABASE_URL and that the database server is running.`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200); // it did wait
  });
});

/**
 * Connections killed under a running pool (the PostgreSQL stage: TESSERA_TEST_DATABASE_URL). Before
 * db/postgres.ts listened on every client, a connection that died while checked out (inside a
 * transaction, between two statements) emitted an `error` nobody listened to and ended the process.
 */
const adminUrl = testDatabaseUrl();
describe.skipIf(!adminUrl)("connections lost under the pool (PostgreSQL)", () => {
  let database: TestDatabase;
  let admin: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase(adminUrl!);
    admin = new pg.Client({ connectionString: adminUrl! });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await database?.drop();
  });
  const terminate = async (pid: number) => {
    await admin.query("select pg_terminate_backend($1)", [pid]);
    // Until the backend is gone.
    for (let i = 0; i < 100 && (await admin.query("select 1 from pg_stat_activity where pid = $1", [pid])).rowCount; i++)
      await new Promise((r) => setTimeout(r, 20));
  };

  it("survives a backend killed inside a transaction and between queries, answers unavailable, then reconnects", async () => {
    const pool = createPool(database.url, 3);
    const db = postgresKysely(pool);
    try {
      const outcome = await db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await terminate(rows[0]!.pid); // the client is checked out and idle: it gets the error event
          await new Promise((r) => setTimeout(r, 100));
          return sql`select 1`.execute(trx);
        })
        .then(
          () => "committed",
          (error: unknown) => error,
        );
      expect(isDatabaseUnavailable(outcome)).toBe(true);
      // Idle connections in the pool killed too.
      const pids = await Promise.all(
        [1, 2, 3].map(async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.05)`.execute(db)).rows[0]!.pid),
      );
      for (const pid of new Set(pids)) await terminate(pid);
      // The pool drops each idle client once its socket reports the termination (asynchronously: a
      // query sent before that would meet the dead connection and answer unavailable, as the fault tests check).
      for (let i = 0; i < 250 && pool.idleCount > 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(pool.idleCount).toBe(0);
      // The next queries open new connections.
      for (let i = 0; i < 5; i++) expect((await sql<{ n: number }>`select 1 as n`.execute(db)).rows[0]!.n).toBe(1);
    } finally {
      await db.destroy();
    }
  });

  it("answers 'busy' (503, Retry-After 2) when every connection stays in use, 'unavailable' when one was just lost", async () => {
    const pool = createPool(database.url, 2, { connectTimeoutMs: 300 });
    const db = postgresKysely(pool);
    const app = Fastify({ logger: false });
    installErrorHandler(app);
    app.get("/one", async () => (await sql<{ n: number }>`select 1 as n`.execute(db)).rows[0]);
    const held = [await pool.connect(), await pool.connect()];
    try {
      const busy = await app.inject({ method: "GET", url: "/one" });
      expect(busy.statusCode).toBe(503);
      expect(busy.headers["retry-after"]).toBe("2");
      expect(busy.json()).toEqual({ detail: POOL_BUSY_MESSAGE });
      // A connection of the pool dies: a wait for a free one now is an outage, not load.
      const { rows } = await held[0]!.query<{ pid: number }>("select pg_backend_pid() as pid");
      await terminate(rows[0]!.pid);
      await new Promise((r) => setTimeout(r, 100));
      const down = await app.inject({ method: "GET", url: "/one" });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({ detail: DATABASE_UNAVAILABLE_MESSAGE });
    } finally {
      held[0]!.release(true);
      held[1]!.release();
    }
    // Connections free again: the request goes through.
    const ok = await app.inject({ method: "GET", url: "/one" });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ n: 1 });
    await app.close();
    await db.destroy();
  });

  it("leaves nothing of a transaction whose connection died before its commit", async () => {
    const db = postgresKysely(createPool(database.url, 2));
    try {
      await sql`create table if not exists lost_writes (n int)`.execute(db);
      const outcome = await db
        .transaction()
        .execute(async (trx) => {
          await sql`insert into lost_writes values (1), (2), (3)`.execute(trx);
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await terminate(rows[0]!.pid);
          await sql`insert into lost_writes values (4)`.execute(trx);
        })
        .then(
          () => "committed",
          (error: unknown) => error,
        );
      expect(isDatabaseUnavailable(outcome)).toBe(true);
      expect((await sql<{ n: number }>`select count(*) as n from lost_writes`.execute(db)).rows[0]!.n).toBe(0);
    } finally {
      await db.destroy();
    }
  });
});

async function admin(work: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl()! });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
