import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { Fixtures } from "../testing/fixtures.js";
import { routeTable } from "../security/index.js";
import { ABSENT_CONTRACT_ROUTES, CONTRACT_ROUTES, type ContractRoute } from "./contract-routes.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

/** `/api/v1/datasets/:dataset_id` and `/datasets/{id}` compare equal: parameter names do not matter. */
const shape = (method: string, url: string) => `${method} ${url.replace(/^\/api\/v1/, "").replace(/\{[^}]+\}|:[^/]+/g, "{}")}`;
const contractKey = (route: ContractRoute) => shape(route.method, route.path);

describe("contract conformance: every endpoint of the contract is registered", () => {
  it("lists each contract route once", () => {
    const keys = CONTRACT_ROUTES.map(contractKey);
    expect(keys.length).toBeGreaterThan(70);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("registers every (method, path) of the contract", () => {
    const registered = new Set(routeTable(server.app).map((r) => shape(r.method, r.url)));
    const missing = CONTRACT_ROUTES.filter((route) => !registered.has(contractKey(route))).map(
      (route) => `${route.method} /api/v1${route.path} (contract ${route.section})`,
    );
    expect(missing, "contract endpoints the server does not register").toEqual([]);
  });

  it("agrees with Fastify's router (hasRoute) for every contract route", () => {
    const table = routeTable(server.app);
    for (const route of CONTRACT_ROUTES) {
      const url = table.find((t) => shape(t.method, t.url) === contractKey(route))?.url ?? `/api/v1${route.path}`;
      expect(server.app.hasRoute({ method: route.method, url }), `${route.method} ${url}`).toBe(true);
    }
  });

  it("keeps the routes the contract says the server does not have unregistered (404)", async () => {
    const registered = new Set(routeTable(server.app).map((r) => shape(r.method, r.url)));
    for (const route of ABSENT_CONTRACT_ROUTES) expect(registered.has(contractKey(route)), `${route.method} ${route.path}`).toBe(false);
    const f = new Fixtures(server);
    const ws = await f.workspace();
    const user = await f.user("annotator");
    const res = await f.request("POST", `/workspaces/${ws.id}/users/${user.id}`);
    expect(res.status).toBe(404);
    expect((await f.request<{ items: unknown[] }>("GET", `/workspaces/${ws.id}/users`)).body.items).toEqual([]);
    expect((await f.request("POST", `/workspaces/${ws.id}/users/${randomUUID()}`, { body: {} })).status).toBe(404);
  });
});
