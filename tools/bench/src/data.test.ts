import { describe, expect, it } from "vitest";
import { cosine } from "@tessera/test-harness";
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
  it("keeps every field but the vector as the uniform-vector generator made it", () => {
    const r = new DatasetGenerator().record(5);
    expect(r.external_id).toBe("bench-5");
    expect(r.metadata).toEqual({ source: "news", length: 433, quality: 0.2179 });
    expect(r.suggestions).toEqual({ sentiment: { value: "neutral", score: 0.87 }, topics: { value: ["politics"], score: [1] } });
    expect(r.fields.text.startsWith("To lo to neyotre tibri lorugri zemi tust")).toBe(true);
    expect(r.fields.summary.startsWith("Quadagri briwatre dasatu sojuc")).toBe(true);
  });
  it("makes clustered unit vectors (near neighbours exist, unrelated records are far), the same without the texts", () => {
    const g = new DatasetGenerator();
    const vectors = Array.from({ length: 3000 }, (_, i) => g.embedding(i));
    expect(g.record(7).vectors.embedding).toEqual(vectors[7]);
    expect(Math.hypot(...vectors[0]!)).toBeCloseTo(1, 5);
    for (const q of [0, 1, 2]) {
      const similarities = vectors.map((v, i) => (i === q ? -1 : cosine(vectors[q]!, v))).sort((a, b) => b - a);
      expect(similarities[0]).toBeGreaterThan(0.7);
      expect(similarities[1500]).toBeLessThan(0.3);
    }
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
