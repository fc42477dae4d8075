import { describe, expect, it } from "vitest";
import { answeredIndexes } from "./answered.ts";

describe("answeredIndexes", () => {
  it("gives one client the first records in order", () => {
    expect(answeredIndexes(0, 1, 5, 100)).toEqual([0, 1, 2, 3, 4]);
  });

  it("interleaves the clients, each record once among them while there are enough", () => {
    const all = [0, 1, 2].map((c) => answeredIndexes(c, 3, 4, 100));
    expect(all[1]).toEqual([1, 4, 7, 10]);
    expect(new Set(all.flat()).size).toBe(12);
  });

  it("wraps past the end without giving a client a record twice", () => {
    const mine = answeredIndexes(1, 4, 5, 10);
    expect(mine).toHaveLength(5);
    expect(new Set(mine).size).toBe(5);
    expect(mine.every((i) => i >= 0 && i < 10)).toBe(true);
  });

  it("gives at most every record, and none of an empty dataset", () => {
    expect(answeredIndexes(0, 2, 50, 7).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(answeredIndexes(0, 1, 5, 0)).toEqual([]);
  });
});
