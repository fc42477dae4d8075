import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { searchEngine } from "../status/use-cases/get-server-status.js";

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
    };
    expect(body.memory.rss).toBeGreaterThan(0);
    if (server.ctx.store.dialect === "sqlite")
      expect(body.memory.search).toEqual({
        similarity_codes: expect.any(Number),
        metadata_columns: expect.any(Number),
        metadata_matches: expect.any(Number),
        record_statuses: expect.any(Number),
        text_matches: expect.any(Number),
      });
    else expect(body.memory.search).toBeUndefined();
    expect(body.version).toBe("2.8.0");
    expect(body.search_engine).toEqual(searchEngine(server.ctx.store));
    expect(body.search_engine).toEqual(
      server.ctx.store.dialect === "postgres"
        ? { name: "postgresql-tsvector", vector_search: server.ctx.store.vectorSearch }
        : { name: "sqlite-fts5", vector_search: true },
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
