import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { backendPid, cancelBackend } from "./postgres-backend.js";
import { queryRows } from "./postgres-sql.js";

// A real PostgreSQL (stage 60, pgone.sh): a statement cancelled from another connection (PGlite runs one).
const onPostgres = testDatabaseUrl() !== null;

describe.skipIf(!onPostgres)("PostgreSQL: a background statement's backend, cancelled at stop", () => {
  let store: Store;
  beforeAll(async () => {
    store = await openTestPostgresStore({ poolSize: 4 });
  });
  afterAll(async () => store?.close());

  it("gives the backend of the connection it runs on, whose statement cancelBackend cancels from another connection", async () => {
    await store.db.connection().execute(async (conn) => {
      const pid = await backendPid(conn);
      const seen = await queryRows<{ pid: number }>(conn, "SELECT pg_backend_pid() AS pid", []);
      expect(pid).toBe(Number(seen[0]!.pid));
      // Its outcome taken at once (a rejection with no handler yet, when the cancel lands before the assertion, is unhandled).
      const sleeping = queryRows(conn, "SELECT pg_sleep(60)", []).then(
        () => null,
        (error: unknown) => error,
      );
      // The statement is running (pg_stat_activity) before it is cancelled: not cancelled before it started.
      for (;;) {
        const active = await queryRows<{ n: number | string }>(
          store.db,
          "SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1 AND state = 'active' AND query LIKE '%pg_sleep%'",
          [pid],
        );
        if (Number(active[0]!.n) > 0) break;
      }
      await cancelBackend(store.db, pid);
      const error = await sleeping;
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/canceling statement due to user request/);
      // The connection serves on.
      expect(await backendPid(conn)).toBe(pid);
    });
  }, 60_000);

  it("does nothing without a backend, nor for a backend gone meanwhile", async () => {
    await expect(cancelBackend(store.db, null)).resolves.toBeUndefined();
    // A connection of its own, closed: its backend ends.
    const client = new pg.Client({ connectionString: store.databaseUrl! });
    await client.connect();
    const gone = Number((await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid);
    await client.end();
    await expect(cancelBackend(store.db, gone)).resolves.toBeUndefined();
  });
});
