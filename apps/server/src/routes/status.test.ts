import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Fastify from "fastify";
import { sql } from "kysely";
import { installErrorHandler } from "../http/errors.js";
import { createPool, postgresKysely } from "../db/postgres.js";
import { closedPort } from "../testing/closed-port.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { searchEngine } from "../status/use-cases/get-server-status.js";
import { settingsRoutes } from "./settings.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

describe("GET /api/v1/status", () => {
  it("tells anonymous callers (and wrong keys) only the version", async () => {
    for (const headers of [{}, { "x-argilla-api-key": "tsr.wrong" }, { authorization: "Bearer not-a-token" }]) {
      const res = await fetch(`${server.url}/api/v1/status`, { headers });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ version: "2.8.0" });
    }
  });
  it("names the search engine of the store it runs on, and the memory, to signed-in users", async () => {
    const body = (await (await fetch(`${server.url}/api/v1/status`, { headers: server.ownerHeaders })).json()) as {
      version: string;
      search_engine: unknown;
      memory: { rss: number; search?: Record<string, number> };
      search_threads?: Record<string, number>;
      search_pending?: Record<string, number>;
    };
    expect(body.memory.rss).toBeGreaterThan(0);
    // The similarity work of the read threads (the built server's end-to-end test reads it: tools/e2e/src/similarity-index.e2e.test.ts).
    expect(body.search_threads).toEqual(
      server.ctx.store.dialect === "sqlite"
        ? { similarity_far_sides: expect.any(Number), similarity_far_scans: expect.any(Number), similarity_reads: expect.any(Number) }
        : undefined,
    );
    // The search's background work left (text records to index, similarity indexes to build): none on a new store.
    expect(body.search_pending).toEqual(server.ctx.store.dialect === "sqlite" ? { text_records: 0, similarity_indexes: 0 } : undefined);
    if (server.ctx.store.dialect === "sqlite")
      expect(body.memory.search).toEqual({
        similarity_codes: expect.any(Number),
        similarity_index: expect.any(Number),
        similarity_far_side: expect.any(Number),
        metadata_columns: expect.any(Number),
        metadata_matches: expect.any(Number),
        record_statuses: expect.any(Number),
        text_matches: expect.any(Number),
        sort_keys: expect.any(Number),
        response_tallies: expect.any(Number),
        answered_records: expect.any(Number),
      });
    else expect(body.memory.search).toBeUndefined();
    expect(body.version).toBe("2.8.0");
    expect(body.search_engine).toEqual(searchEngine(server.ctx.store));
    expect(body.search_engine).toEqual(
      server.ctx.store.dialect === "postgres"
        ? { name: "postgresql-tsvector", vector_search: server.ctx.store.vectorSearch }
        : // The ranking extension (search/rank-extension.ts) is built at install and loaded.
          { name: "sqlite-fts5", vector_search: true, text_ranking: { function: "tessera_bm25" } },
    );
  });
  it("tells a signed-in caller whether the database answers, and nobody else", async () => {
    const signedIn = (await (await fetch(`${server.url}/api/v1/status`, { headers: server.ownerHeaders })).json()) as {
      database?: unknown;
    };
    expect(signedIn.database).toEqual({ dialect: server.ctx.store.dialect, reachable: true, latency_ms: expect.any(Number) });
    const anonymous = (await (await fetch(`${server.url}/api/v1/status`)).json()) as { database?: unknown };
    expect(anonymous.database).toBeUndefined();
    const badKey = (await (await fetch(`${server.url}/api/v1/status`, { headers: { "x-argilla-api-key": "not-a-key" } })).json()) as {
      database?: unknown;
    };
    expect(badKey.database).toBeUndefined();
  });
  it("says postgresql for a PostgreSQL store without pgvector", () => {
    expect(searchEngine({ dialect: "postgres", vectorSearch: false })).toEqual({ name: "postgresql-tsvector", vector_search: false });
  });
});

describe("GET /api/v1/status while the database is unavailable", () => {
  it("tells a caller whose credentials cannot be checked that the database is unreachable (200, nothing else), not 503", async () => {
    // A PostgreSQL that refuses connections (stopped, restarting): checking credentials fails as the app's does.
    const db = postgresKysely(createPool(`postgres://tessera@127.0.0.1:${await closedPort()}/tessera`, 2));
    const app = Fastify();
    installErrorHandler(app);
    settingsRoutes(app, null, { dialect: "postgres", vectorSearch: true, db }, async (request) => {
      if (!request.headers["x-argilla-api-key"]) return false; // no credentials: anonymous without asking the database
      await sql`select 1 from users where api_key = ${request.headers["x-argilla-api-key"]}`.execute(db);
      return true;
    });
    app.get("/api/v1/needs-the-caller", async () => sql`select 1`.execute(db));
    try {
      const withKey = await app.inject({ url: "/api/v1/status", headers: { "x-argilla-api-key": "tsr.some-key" } });
      expect(withKey.statusCode).toBe(200);
      // Only reachability: the error text names the database's host, and the caller is not known.
      expect(withKey.json()).toEqual({ version: "2.8.0", database: { reachable: false } });
      const anonymous = await app.inject({ url: "/api/v1/status" });
      expect(anonymous.json()).toEqual({ version: "2.8.0" });
      // Any other route that needs the caller answers 503 with Retry-After (http/errors.ts).
      const other = await app.inject({ url: "/api/v1/needs-the-caller" });
      expect(other.statusCode).toBe(503);
      expect(other.headers["retry-after"]).toBe("5");
    } finally {
      await app.close();
      await db.destroy();
    }
  });
});
