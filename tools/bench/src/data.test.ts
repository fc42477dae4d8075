import { describe, expect, it } from "vitest";
import { DatasetGenerator, VECTOR_DIMENSIONS } from "./data.ts";
import { percentile, summarize } from "./stats.ts";

describe("dataset generator", () => {
  it("is deterministic and produces records in the specified shape", () => {
    const a = new DatasetGenerator(1).record(5);
    const b = new DatasetGenerator(1).record(5);
    expect(a).toEqual(b);
    const words = a.fields.text.split(/\s+/).length;
    expect(words).toBeGreaterThanOrEqual(50);
    expect(words).toBeLessThanOrEqual(500);
    expect(a.metadata.length).toBe(words);
    expect(a.vectors.embedding).toHaveLength(VECTOR_DIMENSIONS);
    expect(a.suggestions.topics.value.length).toBe(a.suggestions.topics.score.length);
  });
  it("draws frequent words more often than rare ones", () => {
    const g = new DatasetGenerator();
    const text = Array.from({ length: 50 }, (_, i) => g.record(i).fields.text.toLowerCase()).join(" ");
    const count = (w: string) => text.split(/[\s.]+/).filter((x) => x === w).length;
    expect(count(g.wordAt(0))).toBeGreaterThan(count(g.wordAt(500)));
  });
});

describe("stats", () => {
  it("computes nearest-rank percentiles", () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 95)).toBe(95);
    expect(percentile(xs, 99)).toBe(99);
    expect(summarize([3, 1, 2], 0, 1000)).toMatchObject({ count: 3, p50: 2, max: 3, throughput: 3 });
  });
});
