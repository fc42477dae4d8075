import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { fuzzRoutes } from "./fuzz.js";

// A quick seeded pass over every route, on the store of the run (SQLite in stage 20, PostgreSQL in stage 60:
// NUL bytes and lone surrogates answered 500 only there); tools/security runs thousands (FUZZ_RUNS).
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TESSERA_HUB_DATASETS_SERVER_URL: "http://127.0.0.1:9", TESSERA_HUB_TIMEOUT_MS: "500" });
});
afterAll(async () => {
  await server.stop();
});

it("answers random and malformed requests to every route without a 5xx, and failed requests change nothing", async () => {
  const report = await fuzzRoutes(server, { runs: Number(process.env.FUZZ_RUNS ?? 600), seed: Number(process.env.FUZZ_SEED ?? 20261121) });
  expect(report.problems).toEqual([]);
  expect(report.requests).toBeGreaterThan(100);
  // Both failures and successes were exercised.
  expect(Object.keys(report.statuses).some((s) => Number(s) >= 400)).toBe(true);
  expect(Object.keys(report.statuses).some((s) => Number(s) < 300)).toBe(true);
}, 180_000);
