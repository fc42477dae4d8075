import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { limitWorkerHeaps } from "./worker-heaps.js";

/** A worker that allocates ~200 MB of short-lived objects and answers its young generation's size. */
const youngGenerationOfABusyWorker = () =>
  new Promise<number>((resolve, reject) => {
    const worker = new Worker(
      `const v8 = require("node:v8"); const { parentPort } = require("node:worker_threads");
      let n = 0; for (let i = 0; i < 100; i++) { const a = []; for (let j = 0; j < 100000; j++) a.push({ j }); n += a.length; }
      parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size);`,
      { eval: true },
    );
    worker.once("message", (size: number) => void worker.terminate().then(() => resolve(size)));
    worker.once("error", reject);
  });

describe("limitWorkerHeaps", () => {
  it("caps the young generation of the worker threads started afterwards", async () => {
    const before = await youngGenerationOfABusyWorker();
    limitWorkerHeaps(2);
    const after = await youngGenerationOfABusyWorker();
    expect(after).toBeLessThanOrEqual(3 * 2 * 2 ** 20);
    expect(before).toBeGreaterThan(after); // V8's default grows it to tens of MB
  });
});
