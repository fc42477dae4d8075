import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PROFILER_THREAD, quietStep, settleCpuMs, waitUntilSettled } from "./settle.ts";

type Threads = Map<number, { name: string; ms: number }>;
const threads = (entries: [number, string, number][]): Threads => new Map(entries.map(([tid, name, ms]) => [tid, { name, ms }]));

describe("settleCpuMs / quietStep", () => {
  it("leaves out the profiler's threads and the sampling's idle cost of each profiled isolate", () => {
    // An idle profiled server over 5 s as measured (3 isolates): 260 ms in the profiler threads, 250 in the sampled ones.
    const before = threads([
      [1, "MainThread", 1000],
      [2, PROFILER_THREAD, 500],
      [3, "WorkerThread", 300],
      [4, PROFILER_THREAD, 400],
      [5, "WorkerThread", 300],
      [6, PROFILER_THREAD, 400],
    ]);
    const used = new Map([
      [1, 110],
      [2, 90],
      [3, 70],
      [4, 90],
      [5, 70],
      [6, 80],
    ]);
    const after: Threads = new Map([...before].map(([tid, t]) => [tid, { name: t.name, ms: t.ms + used.get(tid)! }]));
    expect(settleCpuMs(before, after, 5000)).toBe(250 - 3 * 75);
    expect(quietStep(before, after, 5000)).toBe(true);
  });

  it("counts every thread without a profiler, and a busy thread keeps the step from being quiet with one", () => {
    const before = threads([
      [1, "MainThread", 0],
      [3, "WorkerThread", 0],
    ]);
    /** The main thread and a worker after a step of 5 s from `before`. */
    const step = (main: number, worker: number) =>
      threads([
        [1, "MainThread", main],
        [3, "WorkerThread", worker],
      ]);
    expect(settleCpuMs(before, step(240, 20), 5000)).toBe(260);
    expect(quietStep(before, step(240, 20), 5000)).toBe(false);
    expect(quietStep(before, step(200, 20), 5000)).toBe(true);
    // The similarity index built on a read thread while profiled: most of a core.
    const building = threads([
      [1, "MainThread", 60],
      [2, PROFILER_THREAD, 90],
      [3, "WorkerThread", 4000],
    ]);
    expect(
      quietStep(
        threads([
          [1, "MainThread", 0],
          [2, PROFILER_THREAD, 0],
          [3, "WorkerThread", 0],
        ]),
        building,
        5000,
      ),
    ).toBe(false);
  });

  it("counts a thread started during the step from zero", () => {
    expect(settleCpuMs(threads([]), threads([[9, "WorkerThread", 400]]), 5000)).toBe(400);
  });
});

describe("waitUntilSettled", () => {
  it("waits for the given number of quiet steps in a row, and gives up after maxMs", async () => {
    // Busy, quiet, busy, quiet, quiet.
    const totals = [0, 3000, 3010, 6000, 6010, 6020];
    let call = 0;
    const read = () => threads([[1, "MainThread", totals[Math.min(call++, totals.length - 1)]!]]);
    const sleep = () => Promise.resolve();
    expect(await waitUntilSettled(1, { read, sleep })).toEqual({ steps: 5, settled: true });
    call = 0;
    const busy = () => threads([[1, "MainThread", 1000 * call++]]);
    expect(await waitUntilSettled(1, { read: busy, sleep, stepMs: 5000, maxMs: 20_000 })).toEqual({ steps: 4, settled: false });
  });
});

describe("waitUntilSettled on a real profiled process", () => {
  let dir: string | undefined;
  let child: ReturnType<typeof spawn> | undefined;
  afterEach(() => {
    child?.kill("SIGKILL");
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("settles an idle node process run with --cpu-prof and two worker threads (its profilers cost more than 5% of a core)", async () => {
    dir = mkdtempSync(join(tmpdir(), "bench-settle-"));
    const script =
      "const { Worker } = require('node:worker_threads'); for (let i = 0; i < 2; i++) new Worker('setInterval(() => {}, 1000)', { eval: true }); setInterval(() => {}, 1000);";
    child = spawn(process.execPath, ["--cpu-prof", `--cpu-prof-dir=${dir}`, "-e", script], { stdio: "ignore" });
    const pid = child.pid!;
    expect(await waitUntilSettled(pid, { stepMs: 1000, maxMs: 15_000 })).toMatchObject({ settled: true });
  }, 30_000);
});
