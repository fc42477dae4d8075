import { describe, expect, it } from "vitest";
import { exactTopK } from "./recall.ts";
import { renderMarkdown, type BenchReport } from "./report.ts";

describe("similarity recall", () => {
  it("takes the exact top k by cosine similarity, without the reference record", () => {
    const vectors = Float32Array.from([1, 0, /* 1 */ 0.9, 0.1, /* 2 */ 0, 1, /* 3 */ -1, 0, /* 4 */ 2, 0.1]);
    const top = exactTopK(vectors, 2, vectors.subarray(0, 2), 3, 0);
    expect(top.map((t) => t.index)).toEqual([4, 1, 2]);
    expect(top[2]!.score).toBeCloseTo(0, 6);
  });
  it("is reported in the markdown table", () => {
    const report = {
      date: "2026-11-21T12:00:00.000Z",
      machine: { cpus: 2, cpuModel: "cpu", memoryGiB: 4, node: "v24", loadBefore: [1], loadAfter: [1] },
      store: "sqlite (embedded)",
      options: {},
      import: {
        records: 10,
        batchSize: 256,
        seconds: 1,
        recordsPerSecond: 10,
        batchP50Ms: 1,
        batchP95Ms: 1,
        serverCpuMs: 1,
        recordsPerServerCpuSecond: 10,
      },
      sdk: { skipped: "x" },
      recall: { samples: 20, k: 50, mean: 0.987, min: 0.9, firstQueryMs: 1234, meanLastScoreGap: 0.0012 },
      recallLeast: {
        samples: 20,
        k: 50,
        order: "least_similar",
        mean: 0.61,
        min: 0.4,
        firstQueryMs: 12,
        meanLastScoreGap: 0.003,
        meanScoreGap: 0.0011,
      },
      latency: [],
      memory: { idleRssBytes: 1, afterImportRssBytes: 1, afterLatencyRssBytes: 1, peakRssBytes: 1 },
      disk: { dataDirAfterImportBytes: 1, dataDirFinalBytes: 1 },
      bundle: { skipped: "x" },
      browser: { skipped: "x" },
      problems: [],
    } satisfies BenchReport;
    expect(renderMarkdown(report)).toContain(
      "| **mean 0.987**, min 0.9 (exact 50th similarity − server's: 0.0012); first similarity query 1234 ms |",
    );
    expect(renderMarkdown(report)).toContain(
      "(20 records, least similar, fresh annotator's queue) | **mean 0.61**, min 0.4 (server's 50th similarity − exact: 0.003; of the mean of the 50: 0.0011); first similarity query 12 ms |",
    );
  });
});
