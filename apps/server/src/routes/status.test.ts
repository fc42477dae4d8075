import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { searchEngine } from "./settings.js";

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server.stop(); });

describe("GET /api/v1/status", () => {
  it("names the search engine of the store it runs on", async () => {
    const body = (await (await fetch(`${server.url}/api/v1/status`)).json()) as { version: string; search_engine: unknown };
    expect(body.version).toBe("2.8.0");
    expect(body.search_engine).toEqual(searchEngine(server.ctx.store));
    expect(body.search_engine).toEqual(server.ctx.store.dialect === "postgres"
      ? { name: "postgresql-tsvector", vector_search: server.ctx.store.vectorSearch }
      : { name: "sqlite-fts5", vector_search: true });
  });
  it("tells a signed-in caller whether the database answers, and nobody else", async () => {
    const signedIn = (await (await fetch(`${server.url}/api/v1/status`, { headers: server.ownerHeaders })).json()) as { database?: unknown };
    expect(signedIn.database).toEqual({ dialect: server.ctx.store.dialect, reachable: true, latency_ms: expect.any(Number) });
    const anonymous = (await (await fetch(`${server.url}/api/v1/status`)).json()) as { database?: unknown };
    expect(anonymous.database).toBeUndefined();
    const badKey = (await (await fetch(`${server.url}/api/v1/status`, { headers: { "x-argilla-api-key": "not-a-key" } })).json()) as { database?: unknown };
    expect(badKey.database).toBeUndefined();
  });
  it("says postgresql for a PostgreSQL store without pgvector", () => {
    expect(searchEngine({ dialect: "postgres", vectorSearch: false })).toEqual({ name: "postgresql-tsvector", vector_search: false });
  });
});
