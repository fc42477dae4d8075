import { describe, expect, it } from "vitest";
import { BackgroundLoop } from "./background-loop.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("BackgroundLoop", () => {
  it("runs at once and on each tick, never two runs at a time", async () => {
    let runs = 0;
    let concurrent = 0;
    let most = 0;
    const loop = new BackgroundLoop(
      async () => {
        runs++;
        most = Math.max(most, ++concurrent);
        await sleep(25);
        concurrent--;
      },
      () => undefined,
    );
    loop.start(5);
    expect(runs).toBe(1);
    await sleep(120);
    await loop.stop();
    expect(runs).toBeGreaterThanOrEqual(3);
    expect(most).toBe(1);
  });

  it("reports a run's failure, but not one that ends after stop, and stop waits for the run in progress", async () => {
    const reported: unknown[] = [];
    let ended = false;
    const failing = new BackgroundLoop(
      async () => {
        throw new Error("boom");
      },
      (e) => reported.push(e),
    );
    failing.start(1_000);
    await sleep(5);
    await failing.stop();
    expect(reported).toHaveLength(1);

    const slow = new BackgroundLoop(
      async () => {
        await sleep(30);
        ended = true;
        throw new Error("after stop");
      },
      (e) => reported.push(e),
    );
    slow.start(1_000);
    await slow.stop();
    expect(ended).toBe(true);
    expect(reported).toHaveLength(1);
  });

  it("runs no more after finish or stop, and does not start again", async () => {
    let runs = 0;
    const loop = new BackgroundLoop(
      async () => {
        runs++;
      },
      () => undefined,
    );
    loop.start(5);
    await sleep(20);
    loop.finish();
    const after = runs;
    await sleep(30);
    expect(runs).toBe(after);
    await loop.stop();
    loop.start(5);
    await sleep(20);
    expect(runs).toBe(after);
  });
});
