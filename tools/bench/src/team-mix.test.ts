import { describe, expect, it } from "vitest";
import type { Annotator, BenchDataset } from "./api.ts";
import { DatasetGenerator } from "./data.ts";
import { RecordPool, runLoad, scenarios, type Scenario } from "./latency.ts";
import { renderMarkdown, type BenchReport } from "./report.ts";
import { mixPattern, TEAM_MIX, TEAM_MIX_NAME, TEAM_MIX_SUBMIT_SHARE, teamMix } from "./team-mix.ts";

const clients = ["a", "b"].map((username) => ({ username }) as Annotator);
const probe = (name: string, recordsPerRequest = 0, fail = false): Scenario => ({
  name,
  recordsPerRequest,
  run: async () => {
    await Promise.resolve();
    if (fail) throw new Error(`${name} failed`);
  },
});

describe("team mix", () => {
  it("draws every call by its weight, in the same shuffled order each run", () => {
    const pattern = mixPattern();
    expect(pattern).toHaveLength(TEAM_MIX.reduce((s, [, w]) => s + w, 0));
    for (const [name, weight] of TEAM_MIX) expect(pattern.filter((n) => n === name)).toHaveLength(weight);
    expect(mixPattern()).toEqual(pattern);
    // Shuffled: not the weights' order (the loop's three calls would otherwise come as 84 in a row).
    expect(pattern.slice(0, 28).every((n) => n === TEAM_MIX[0]![0])).toBe(false);
    expect(mixPattern(TEAM_MIX, 2)).not.toEqual(pattern);
    // The record budget: 28 of every 100 calls submit one record.
    expect(TEAM_MIX_SUBMIT_SHARE).toBeCloseTo(0.28);
  });

  it("names only calls the bench has (the mix follows the single-call rows' names)", () => {
    const gen = new DatasetGenerator();
    const all = scenarios({ datasetId: "d" } as BenchDataset, gen, new RecordPool([]), ["r"]);
    expect(() => teamMix(all)).not.toThrow();
    expect(() => teamMix(all, [["no such call", 1]])).toThrow(/no such call/);
  });

  it("reports each call of the mix on its own, warm-up calls and failures not timed", async () => {
    const weights = [
      ["page", 3],
      ["submit", 1],
      ["broken", 1],
    ] as const;
    const mix = teamMix([probe("page"), probe("submit", 1), probe("broken", 0, true)], weights);
    const summary = await runLoad(mix.scenario, clients, { concurrency: 2, requests: 50, maxSeconds: 10, warmup: 5 });
    const byCall = mix.byCall(1000);
    // 50 timed calls, one in five of each period fails.
    expect(summary.count + summary.errors).toBe(50);
    expect(byCall.get("page")!.count).toBe(30);
    expect(byCall.get("submit")!.count).toBe(10);
    expect(byCall.get("broken")!.count).toBe(0);
    expect(byCall.get("broken")!.errors).toBe(10);
  });

  it("renders its rows without a CPU figure of their own", () => {
    const report = {
      date: "2026-11-27T00:00:00Z",
      machine: { cpus: 2, cpuModel: "x", memoryGiB: 24, node: "24", loadBefore: [0], loadAfter: [0] },
      store: "sqlite (embedded)",
      options: { thinkMs: 1000 },
      import: {
        records: 10,
        batchSize: 1,
        seconds: 1,
        recordsPerSecond: 10,
        batchP50Ms: 1,
        batchP95Ms: 1,
        serverCpuMs: 1,
        recordsPerServerCpuSecond: 1,
      },
      sdk: { skipped: "x" },
      latency: [
        {
          name: TEAM_MIX_NAME,
          levels: { 50: { count: 9, errors: 0, p50: 1, p95: 2, p99: 3, max: 3, mean: 1, throughput: 9, serverCpuMsPerRequest: 4.2 } },
        },
        {
          name: "team at work: submit (28%)",
          levels: { 50: { count: 3, errors: 0, p50: 5, p95: 6, p99: 7, max: 7, mean: 5, throughput: 3 } },
        },
      ],
      memory: { idleRssBytes: 1, afterImportRssBytes: 1, afterLatencyRssBytes: 1, peakRssBytes: 1 },
      disk: { dataDirAfterImportBytes: 1, dataDirFinalBytes: 1 },
      bundle: { skipped: "x" },
      browser: { skipped: "x" },
      problems: [],
    } as unknown as BenchReport;
    const md = renderMarkdown(report);
    expect(md).toContain(`| ${TEAM_MIX_NAME} | 1 / **2** / 3 (n=9, 9 req/s, 4.2 ms server CPU/req) | every call p95 < 100 ms |`);
    expect(md).toContain("| team at work: submit (28%) | 5 / **6** / 7 (n=3, 3 req/s) |");
    expect(md).not.toContain("undefined");
  });
});
