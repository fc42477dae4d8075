import { describe, expect, it } from "vitest";
import { exactSpanTally, f1Of, tokenize, tokenSpanTally } from "./span-f1.js";

describe("span F1", () => {
  const text = "Ada Lovelace met Charles Babbage in London";
  const tokens = tokenize(text);

  it("tokenizes on whitespace with offsets", () => {
    expect(tokens.slice(0, 3)).toEqual([
      [0, 3],
      [4, 12],
      [13, 16],
    ]);
  });

  it("exact: only identical (label, start, end) triples match", () => {
    const a = [
      { start: 0, end: 12, label: "PER" },
      { start: 36, end: 42, label: "LOC" },
    ];
    const b = [
      { start: 0, end: 3, label: "PER" },
      { start: 36, end: 42, label: "LOC" },
      { start: 17, end: 32, label: "PER" },
    ];
    const tally = exactSpanTally(a, b);
    expect(tally).toEqual({ matched: 1, total: 5 });
    expect(f1Of(tally)).toBeCloseTo(0.4, 12);
  });

  it("token overlap: a partly matching span counts by the tokens both cover with the same label", () => {
    const a = [{ start: 0, end: 12, label: "PER" }];
    const b = [{ start: 0, end: 3, label: "PER" }];
    // a covers tokens {0, 1}, b covers {0}: F1 = 2 * 1 / 3
    expect(f1Of(tokenSpanTally(a, b, tokens))).toBeCloseTo(2 / 3, 12);
    expect(f1Of(tokenSpanTally(a, [{ start: 0, end: 3, label: "LOC" }], tokens))).toBe(0);
  });

  it("is undefined when nobody marked a span", () => {
    expect(f1Of(exactSpanTally([], []))).toBeNull();
  });
});
