import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestServer, type TestServer } from "@tessera/server/src/testing/test-server.js";
import { fuzzRoutes } from "@tessera/server/src/security/fuzz.js";

// The long fuzz run: thousands of seeded random requests over every route the server registers.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ TESSERA_HUB_DATASETS_SERVER_URL: "http://127.0.0.1:9", TESSERA_HUB_TIMEOUT_MS: "500" });
});
afterAll(async () => {
  await server.stop();
});

it("survives thousands of malformed requests: no 5xx, failed requests change no table", async () => {
  const runs = Number(process.env.FUZZ_RUNS ?? 4000);
  const report = await fuzzRoutes(server, { runs, seed: Number(process.env.FUZZ_SEED ?? 451) });
  console.info(`fuzz: ${report.requests} requests, statuses ${JSON.stringify(report.statuses)}`);
  expect(report.problems).toEqual([]);
  expect(report.requests).toBe(runs);
}, 600_000);
