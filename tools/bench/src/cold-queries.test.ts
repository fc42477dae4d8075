import { describe, expect, it } from "vitest";
import { coldPhrases, coldPrefixes } from "./cold-queries.ts";
import { DatasetGenerator } from "./data.ts";

const gen = new DatasetGenerator();
const wordAt = (rank: number) => gen.wordAt(rank);

describe("cold queries", () => {
  it("gives a phrase of two or three distinct words never given before, cycling through the bands", () => {
    const next = coldPhrases(wordAt, gen.words.length);
    const queries = Array.from({ length: 500 }, next);
    expect(new Set(queries).size).toBe(500);
    for (const q of queries) {
      const words = q.split(" ");
      expect(words.length === 2 || words.length === 3).toBe(true);
      expect(new Set(words).size).toBe(words.length);
    }
    // The first call of each band: its ranks shifted by +1.
    expect(queries.slice(0, 5)).toEqual(
      [
        [21, 26],
        [21, 61],
        [21, 41, 61],
        [61, 201],
        [201, 2001],
      ].map((ranks) => ranks.map(wordAt).join(" ")),
    );
  });

  it("reversed: the forward phrases' words from the rarest, never a forward phrase", () => {
    const forward = Array.from({ length: 300 }, coldPhrases(wordAt, gen.words.length));
    const reversed = Array.from({ length: 300 }, coldPhrases(wordAt, gen.words.length, undefined, true));
    expect(reversed).toEqual(forward.map((q) => q.split(" ").reverse().join(" ")));
    const asked = new Set(forward);
    expect(reversed.filter((q) => asked.has(q))).toEqual([]);
  });

  it("gives a prefix never given before: a word's first letters and a star", () => {
    const next = coldPrefixes(wordAt, gen.words.length);
    const queries = Array.from({ length: 300 }, next);
    expect(new Set(queries).size).toBe(300);
    for (const q of queries) expect(q).toMatch(/^[a-z]{3,}\*$/);
    const first = queries[0]!.slice(0, -1);
    expect(gen.words.filter((w) => w.startsWith(first)).length).toBeGreaterThanOrEqual(1);
  });
});
