import { describe, expect, it } from "vitest";
import { mergeSorted } from "./sqlite-answered.js";
import { answeredRanges } from "./sqlite-text-answered.js";

describe("mergeSorted", () => {
  it("adds seqs in order, once each", () => {
    expect(Array.from(mergeSorted(Uint32Array.from([2, 5, 9]), [7, 1, 5, 12]))).toEqual([1, 2, 5, 7, 9, 12]);
    expect(Array.from(mergeSorted(new Uint32Array(0), [3, 3]))).toEqual([3]);
  });
});

describe("answeredRanges", () => {
  it("merges runs at most `gap` apart", () => {
    expect(answeredRanges([1, 2, 3, 10, 11, 300, 900], 8, 10)).toEqual([
      [1, 11],
      [300, 300],
      [900, 900],
    ]);
    expect(answeredRanges([5], 256, 1)).toEqual([[5, 5]]);
  });

  it("doubles the gap until the ranges are few enough, covering every seq", () => {
    const seqs = Array.from({ length: 100 }, (_, i) => i * 10);
    const ranges = answeredRanges(seqs, 1, 7);
    expect(ranges.length).toBeLessThanOrEqual(7);
    expect(ranges[0]![0]).toBe(0);
    expect(ranges[ranges.length - 1]![1]).toBe(990);
    for (const seq of seqs) expect(ranges.some(([a, b]) => a <= seq && seq <= b)).toBe(true);
  });
});
