import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import Fastify from "fastify";
import pg from "pg";
import { sql } from "kysely";
import { installErrorHandler, notFound } from "../http/errors.js";
import { closedPort } from "../testing/closed-port.js";
import { openPgliteStore, type PgliteStore } from "../testing/pglite-store.js";
import { createPool, postgresKysely } from "./postgres.js";
import { backgroundErrorLogger, DATABASE_UNAVAILABLE_MESSAGE, databaseStatus, isDatabaseUnavailable } from "./availability.js";

const failure = async (work: () => Promise<unknown>): Promise<unknown> => {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
};

let pglite: PgliteStore;
let refused: string;
/** Accepts TCP connections and never answers (a black-holed database). */
let silent: Server;
const sockets: Socket[] = [];
beforeAll(async () => {
  pglite = await openPgliteStore({ pgvector: false });
  refused = `postgres://postgres@127.0.0.1:${await closedPort()}/tessera`;
  silent = createServer((socket) => {
    sockets.push(socket);
  });
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
}, 60_000);
afterAll(async () => {
  await pglite?.close();
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
});

describe("isDatabaseUnavailable", () => {
  it("recognizes a refused connection, from a client and from the pool, also by host name (several addresses)", async () => {
    const client = new pg.Client({ connectionString: refused });
    expect(isDatabaseUnavailable(await failure(() => client.connect()))).toBe(true);
    const pool = createPool(refused, 1);
    expect(isDatabaseUnavailable(await failure(() => postgresKysely(pool).selectFrom("users").selectAll().execute()))).toBe(true);
    await pool.end();
    const byName = new pg.Client({ connectionString: refused.replace("127.0.0.1", "localhost") });
    expect(isDatabaseUnavailable(await failure(() => byName.connect()))).toBe(true);
  });

  it("recognizes a server that never answers (the pool gives up connecting)", async () => {
    const port = (silent.address() as { port: number }).port;
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/x`, connectionTimeoutMillis: 200 });
    const error = await failure(() => pool.query("select 1"));
    expect(String(error)).toMatch(/timeout/);
    expect(isDatabaseUnavailable(error)).toBe(true);
    await pool.end();
  });

  it("leaves errors of the request or the code alone (they keep their own answers)", async () => {
    expect(isDatabaseUnavailable(await failure(() => sql`selec 1`.execute(pglite.db)))).toBe(false);
    expect(isDatabaseUnavailable(await failure(() => sql`select 1/0`.execute(pglite.db)))).toBe(false);
    expect(isDatabaseUnavailable(notFound("nope"))).toBe(false);
    expect(isDatabaseUnavailable(new Error("something else"))).toBe(false);
    // A call of ours to another service that could not connect is not the database.
    expect(isDatabaseUnavailable(await failure(() => fetch(refused.replace("postgres://postgres@", "http://"))))).toBe(false);
  });
});

describe("the answer to a request caught in a database outage", () => {
  it("is a 503 with Retry-After and a clear message; other errors keep their status", async () => {
    const pool = createPool(refused, 2);
    const down = postgresKysely(pool);
    const app = Fastify({ logger: false });
    installErrorHandler(app);
    app.get("/down", async () => down.selectFrom("users").selectAll().execute());
    app.get("/bug", async () => {
      throw new Error("a bug");
    });
    app.get("/missing", async () => {
      throw notFound("No such thing");
    });
    const res = await app.inject({ method: "GET", url: "/down" });
    expect(res.statusCode).toBe(503);
    expect(res.headers["retry-after"]).toBe("5");
    expect(res.json()).toEqual({ detail: DATABASE_UNAVAILABLE_MESSAGE });
    expect((await app.inject({ method: "GET", url: "/bug" })).statusCode).toBe(500);
    expect((await app.inject({ method: "GET", url: "/missing" })).statusCode).toBe(404);
    await app.close();
    await down.destroy();
  });
});

describe("databaseStatus", () => {
  it("says reachable with the latency when the database answers, and why not when it does not", async () => {
    const up = await databaseStatus(pglite.db);
    expect(up).toEqual({ reachable: true, latency_ms: expect.any(Number) });
    const down = postgresKysely(createPool(refused, 1));
    const status = await databaseStatus(down);
    expect(status).toEqual({ reachable: false, latency_ms: expect.any(Number), error: expect.stringContaining("ECONNREFUSED") });
    await down.destroy();
  });

  it("gives up after its timeout on a server that never answers", async () => {
    const port = (silent.address() as { port: number }).port;
    const hung = postgresKysely(createPool(`postgres://postgres@127.0.0.1:${port}/x`, 1));
    expect(await databaseStatus(hung, 150)).toEqual({ reachable: false, latency_ms: expect.any(Number), error: "no answer within 150 ms" });
    void hung.destroy().catch(() => {}); // ends once the pool gives up connecting (or the silent server closes)
  });
});

describe("backgroundErrorLogger", () => {
  it("logs an unavailable database as one line a second at most, other errors in full", async () => {
    const lines: unknown[][] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      lines.push(args);
    });
    try {
      const log = backgroundErrorLogger("job queue");
      const lost = await failure(() => new pg.Client({ connectionString: refused }).connect());
      for (let i = 0; i < 5; i++) log(lost);
      expect(lines).toEqual([
        [expect.stringMatching(/^job queue: the database is unavailable \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)$/)],
      ]);
      const bug = new Error("a bug");
      log(bug);
      expect(lines[1]).toEqual(["job queue:", bug]);
      await new Promise((r) => setTimeout(r, 1010));
      log(lost);
      expect(lines[2]![0]).toMatch(/, 4 more such errors since the last report$/);
    } finally {
      spy.mockRestore();
    }
  });
});
