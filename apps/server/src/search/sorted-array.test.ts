import { describe, expect, it } from "vitest";
import { firstAtLeast, sortedHas } from "./sorted-array.js";

describe("sorted arrays", () => {
  it("finds the first element at least a value, within a length", () => {
    const a = new Float64Array([1, 4, 4, 16]);
    expect([0, 1, 2, 4, 5, 16, 17].map((v) => firstAtLeast(a, v))).toEqual([0, 0, 1, 1, 3, 3, 4]);
    expect(firstAtLeast(a, 16, 2)).toBe(2);
    expect(firstAtLeast(["ab", "b", "ba", "c"], "b")).toBe(1);
    expect(firstAtLeast(new Uint32Array(0), 3)).toBe(0);
  });

  it("tells whether an ascending array holds a value", () => {
    const a = new Uint32Array([1, 4, 16]);
    expect([0, 1, 4, 5, 16, 17].map((v) => sortedHas(a, v))).toEqual([false, true, true, false, true, false]);
    expect(sortedHas(new Float64Array(0), 0)).toBe(false);
  });
});
