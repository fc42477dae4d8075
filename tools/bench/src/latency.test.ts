import { describe, expect, it } from "vitest";
import type { Annotator } from "./api.ts";
import { runLoad, type Scenario } from "./latency.ts";

const clients = ["a", "b", "c", "d"].map((username) => ({ username }) as Annotator);

describe("runLoad", () => {
  it("gives every client an untimed first call before the timed ones", async () => {
    const calls: Array<{ client: string; i: number }> = [];
    const scenario: Scenario = {
      name: "probe",
      recordsPerRequest: 0,
      run: async (c, i) => {
        calls.push({ client: c.username, i });
        await Promise.resolve();
      },
    };
    const summary = await runLoad(scenario, clients, { concurrency: 4, requests: 12, maxSeconds: 10, warmup: 1 });
    const untimed = calls.filter((c) => c.i < 0);
    expect(untimed.map((c) => c.client).sort()).toEqual(["a", "b", "c", "d"]);
    // Every untimed call comes before the first timed call, and only timed calls are counted.
    expect(calls.findIndex((c) => c.i >= 0)).toBe(untimed.length);
    expect(summary.count).toBe(12);
  });

  it("keeps a larger warm-up than the clients", async () => {
    let untimed = 0;
    const scenario: Scenario = {
      name: "probe",
      recordsPerRequest: 0,
      run: async (_c, i) => {
        if (i < 0) untimed++;
        await Promise.resolve();
      },
    };
    await runLoad(scenario, clients, { concurrency: 1, requests: 2, maxSeconds: 10, warmup: 5 });
    expect(untimed).toBe(5);
  });
});
