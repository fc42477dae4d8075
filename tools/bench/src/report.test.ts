import { describe, expect, it } from "vitest";
import { renderMarkdown, type BenchReport } from "./report.ts";

const report: BenchReport = {
  date: "2026-11-21T12:00:00.000Z",
  machine: { cpus: 2, cpuModel: "test cpu", memoryGiB: 4, node: "v24.0.0", loadBefore: [1, 1, 1], loadAfter: [2, 2, 2] },
  store: "sqlite (embedded)",
  options: {},
  import: {
    records: 1000,
    batchSize: 256,
    seconds: 1,
    recordsPerSecond: 1000,
    batchP50Ms: 200,
    batchP95Ms: 250,
    serverCpuMs: 500,
    recordsPerServerCpuSecond: 2000,
  },
  sdk: { skipped: "--sdk-records 0" },
  latency: [
    {
      name: "next page of pending (10)",
      levels: {
        1: { count: 10, errors: 0, p50: 1, p95: 2, p99: 3, max: 3, mean: 1.5, throughput: 100, serverCpuMsPerRequest: 0.8 },
        20: { skipped: "not enough records" },
      },
    },
  ],
  memory: { idleRssBytes: 2 ** 20, afterImportRssBytes: 2 ** 21, afterLatencyRssBytes: 2 ** 21, peakRssBytes: 2 ** 22 },
  disk: { dataDirAfterImportBytes: 2 ** 20, dataDirFinalBytes: 2 ** 20 },
  bundle: { skipped: "no dist" },
  browser: { skipped: "not measured: no Chromium" },
  problems: ["similarity @20: 1 errors"],
};

describe("markdown report", () => {
  it("shows every measure, the targets, the skipped parts with their reason and the problems", () => {
    const md = renderMarkdown(report);
    expect(md).toContain("1,000 records/s");
    expect(md).toContain("2,000 records per server CPU second");
    expect(md).toContain("≥ 10,000 records/s");
    expect(md).toContain(
      "| next page of pending (10) | 1 / **2** / 3 (n=10, 100 req/s, 0.8 ms server CPU/req) | not measured: not enough records | p95 < 50 ms |",
    );
    expect(md).toContain("not measured: no Chromium");
    expect(md).toContain("4.0 MB");
    expect(md).toContain("- similarity @20: 1 errors");
  });
});

describe("markdown report, search ready after the import", () => {
  it("gives the first text search and when the similarity index, its far side and the last background work were in, from the last batch", () => {
    const md = renderMarkdown({
      ...report,
      import: {
        ...report.import,
        readiness: { textSearchMs: 420, textSeconds: 0.4, similarityIndexSeconds: 7.5, farSideSeconds: 9.1, settledSeconds: 9.4 },
      },
    });
    expect(md).toContain(
      "| search ready after the last batch: first text search / similarity index (most similar) / with least similar's far side / no search work left | 420 ms (at 0.4 s) / **7.5 s** / **9.1 s** / **9.4 s** | within 10 s |",
    );
    const older = renderMarkdown({
      ...report,
      import: { ...report.import, readiness: { textSearchMs: 420, textSeconds: 0.4, similarityIndexSeconds: 7.5, farSideSeconds: 9.1 } },
    });
    expect(older).toContain("/ **9.1 s** / not said | within 10 s |");
    expect(renderMarkdown(report)).not.toContain("search ready after the last batch");
  });
});

describe("markdown report, memory", () => {
  it("gives the peak of each phase and the server's own figures", () => {
    const mib = 2 ** 20;
    const md = renderMarkdown({
      ...report,
      memory: {
        ...report.memory,
        importPeakRssBytes: 300 * mib,
        latencyPeakRssBytes: { 1: 310 * mib, 50: 330 * mib },
        server: {
          rss: 320 * mib,
          heapTotal: 60 * mib,
          heapUsed: 42 * mib,
          external: 44 * mib,
          arrayBuffers: mib,
          search: { similarity_codes: 8 * mib },
        },
      },
    });
    expect(md).toContain("| server RSS peak (all threads): import / 1 client / 50 clients | 300.0 MB / 310.0 MB / 330.0 MB |");
    expect(md).toContain("42.0 MB / 60.0 MB, 44.0 MB; similarity codes 8.0 MB");
  });
});

describe("markdown report, browser part", () => {
  it("gives the heap growth after the warm-up, from the 20th record, and split into compiled code and the rest", () => {
    const mib = 2 ** 20;
    const md = renderMarkdown({
      ...report,
      browser: {
        firstRecordMs: [500],
        nextRecordMs: { count: 600, p50: 3, p95: 12, p99: 40, max: 80 },
        keptMs: { count: 50, p50: 6, p95: 15, max: 30 },
        nextRecordPaintP50: 20,
        heapBaselineBytes: 10 * mib,
        heapFinalBytes: 10.5 * mib,
        heapGrowthPercent: 5,
        annotated: 600,
        warmupRecords: 100,
        heapEarlyBytes: 8 * mib,
        heapGrowthFromEarlyPercent: 31.3,
        heapComposition: {
          baseline: { codeBytes: 5 * mib, jsBytes: 2 * mib, nativeBytes: 4 * mib },
          final: { codeBytes: 5.4 * mib, jsBytes: 2.04 * mib, nativeBytes: 4.5 * mib },
          jsGrowthPercent: 2,
        },
      },
    });
    expect(md).toContain("| JS heap after GC, 100 warm-up records → 600 annotated | 10.0 MB → 10.5 MB (**+5%**) | < 10% |");
    expect(md).toContain("| JS heap after GC, from the 20th record | 8.0 MB → 10.5 MB (+31.3%) | |");
    expect(md).toContain("| form change → kept on this device's disk (50 changes) | p50 6 ms, **p95 15 ms**, max 30 ms | < 1000 ms |");
    expect(md).toContain("JS 2.0 MB → 2.0 MB (**+2%**); code 5.0 MB → 5.4 MB; native 4.0 MB → 4.5 MB");
  });
});

describe("markdown report, heap from the 100th record", () => {
  it("is given when the warm-up is longer than 100 records", () => {
    const mib = 2 ** 20;
    const browser = {
      firstRecordMs: [500],
      nextRecordMs: { count: 1100, p50: 3, p95: 12, p99: 40, max: 80 },
      nextRecordPaintP50: 20,
      heapBaselineBytes: 9 * mib,
      heapFinalBytes: 9.1 * mib,
      heapGrowthPercent: 1.1,
      annotated: 1100,
      warmupRecords: 600,
      heapEarlyBytes: 7.2 * mib,
      heapGrowthFromEarlyPercent: 26.4,
      heapTieringBytes: 7.9 * mib,
      heapGrowthFromTieringPercent: 15.2,
    };
    expect(renderMarkdown({ ...report, browser })).toContain(
      "| JS heap after GC, from the 100th record (V8 still optimising) | 7.9 MB → 9.1 MB (+15.2%) | |",
    );
    expect(renderMarkdown({ ...report, browser: { ...browser, warmupRecords: 100 } })).not.toContain("from the 100th record");
  });
});
