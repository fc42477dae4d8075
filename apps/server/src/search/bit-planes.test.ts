import { expect, it } from "vitest";
import { planeScorer, PLANES_MODULE, queryPlanes } from "./bit-planes.js";
import { asymmetricScores, asymmetricTable } from "./knn-ivf.js";
import { seededRandom } from "../testing/random.js";

const randomCodes = (random: () => number, n: number, words: number, dimensions: number) => {
  const codes = new Uint32Array(n * words);
  for (let i = 0; i < n; i++) for (let d = 0; d < dimensions; d++) if (random() < 0.5) codes[i * words + (d >>> 5)]! |= 1 << (d & 31);
  return codes;
};
const randomQuery = (random: () => number, dimensions: number) => Array.from({ length: dimensions }, () => random() * 2 - 1);
/** The query as the planes quantise it: lo + Δ·u_i. */
const quantised = (values: number[], q: { lo: number; delta: number }) =>
  values.map((x) => q.lo + q.delta * Math.round((x - q.lo) / q.delta));

it("scores codes with popcounts as the asymmetric score of the query quantised to 4 bits", () => {
  const random = seededRandom(7);
  for (const dimensions of [384, 100, 64]) {
    const words = Math.ceil(dimensions / 32);
    const codes = randomCodes(random, 300, words, dimensions);
    const values = randomQuery(random, dimensions);
    const q = queryPlanes(values, words, dimensions);
    expect(q.bits).toBe(4);
    const packed = planeScorer(PLANES_MODULE)(q, codes, words, Uint32Array.from([0, 300]), 1);
    const exact = asymmetricScores(asymmetricTable(quantised(values, q), words), codes, words, 0, 300);
    for (let i = 0; i < 300; i++) {
      const v = packed[i]!;
      expect(2 * (q.lo * (v >>> 16) + q.delta * (v & 0xffff)) - q.total).toBeCloseTo(exact[i]!, 3);
    }
    // The quantised query is close to the query: its levels are at most half a step away.
    quantised(values, q).forEach((x, d) => expect(Math.abs(x - values[d]!)).toBeLessThanOrEqual(q.delta / 2 + 1e-12));
  }
});

it("gives the same counts with WebAssembly as without, range by range in the order given, and grows its memory", () => {
  const random = seededRandom(11);
  const words = 12;
  const codes = randomCodes(random, 5000, words, 384);
  const q = queryPlanes(randomQuery(random, 384), words, 384);
  const wasm = planeScorer(PLANES_MODULE);
  const js = planeScorer(null);
  expect(wasm.wasm).toBe(true);
  expect(js.wasm).toBe(false);
  const ranges = Uint32Array.from([4000, 1000, 0, 10, 17, 0, 100, 1]);
  const got = Array.from(wasm(q, codes, words, ranges, 4));
  expect(got).toEqual(Array.from(js(q, codes, words, ranges, 4)));
  expect(got.length).toBe(1011);
  // Range by range: the counts of codes 4000-4999, then 0-9, then 100.
  const all = Array.from(js(q, codes, words, Uint32Array.from([0, 5000]), 1));
  expect(got).toEqual([...all.slice(4000, 5000), ...all.slice(0, 10), all[100]]);
  // A first call on few codes, then more: the memory grows (the first answer was a view, the second is right).
  const small = planeScorer(PLANES_MODULE);
  expect(Array.from(small(q, codes, words, Uint32Array.from([0, 2]), 1))).toEqual(all.slice(0, 2));
  expect(Array.from(small(q, codes, words, Uint32Array.from([0, 5000]), 1))).toEqual(all);
  expect(Array.from(wasm(q, codes, words, Uint32Array.from([]), 0))).toEqual([]);
});

it("counts odd numbers of words in JavaScript, and keeps the packed levels below 65,536 for wide vectors", () => {
  const random = seededRandom(3);
  // 3 words (96 bits): the WebAssembly function reads 64-bit words.
  const codes = randomCodes(random, 50, 3, 90);
  const values = randomQuery(random, 90);
  const q = queryPlanes(values, 3, 90);
  const packed = planeScorer(PLANES_MODULE)(q, codes, 3, Uint32Array.from([0, 50]), 1);
  const exact = asymmetricScores(asymmetricTable(quantised(values, q), 3), codes, 3, 0, 50);
  packed.forEach((v, i) => expect(2 * (q.lo * (v >>> 16) + q.delta * (v & 0xffff)) - q.total).toBeCloseTo(exact[i]!, 3));
  // 16,384 dimensions (the most a vector setting has): 2 bits (3 x 16,384 < 65,536), every bit set and every level at its top.
  const wide = queryPlanes(
    Array.from({ length: 16384 }, (_, d) => (d === 0 ? -1 : 1)),
    512,
    16384,
  );
  expect(wide.bits).toBe(2);
  const ones = new Uint32Array(512).fill(0xffffffff);
  const v = planeScorer(PLANES_MODULE)(wide, ones, 512, Uint32Array.from([0, 1]), 1)[0]!;
  expect(v >>> 16).toBe(16384);
  expect(v & 0xffff).toBe(3 * 16383);
  // A constant query has no range to quantise: no NaN.
  const flat = queryPlanes(new Array(64).fill(0.5), 2, 64);
  const score = planeScorer(PLANES_MODULE)(flat, Uint32Array.from([0xffffffff, 0]), 2, Uint32Array.from([0, 1]), 1)[0]!;
  expect(2 * (flat.lo * (score >>> 16) + flat.delta * (score & 0xffff)) - flat.total).toBeCloseTo(0, 9);
});
