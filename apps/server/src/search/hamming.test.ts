import fc from "fast-check";
import { expect, it } from "vitest";
import { HammingStore, hammingTable } from "./hamming.js";

const popcount = (x: number) => {
  let n = 0;
  for (let v = x >>> 0; v !== 0; v >>>= 1) n += v & 1;
  return n;
};
const naive = (codes: Uint32Array, words: number, probe: Uint32Array, size: number) =>
  Array.from({ length: size }, (_, i) => {
    let d = 0;
    for (let w = 0; w < words; w++) d += popcount(codes[i * words + w]! ^ probe[w]!);
    return d;
  });

it("the WebAssembly popcount and the table give the bit-count distances, for any codes", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 8 }).map((h) => h * 2),
      fc.integer({ min: 0, max: 40 }),
      fc.integer(),
      (words, size, seed) => {
        let s = seed >>> 0;
        const next = () => {
          s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
          return s;
        };
        const store = HammingStore.create(words, size + 3)!;
        expect(store).not.toBeNull();
        for (let i = 0; i < size * words; i++) store.codes[i] = next();
        const probe = Uint32Array.from({ length: words }, next);
        const expected = naive(store.codes, words, probe, size);
        expect(Array.from(store.distances(probe, size))).toEqual(expected);
        // A range of the codes (an index's list, search/knn-ivf.ts) gives the same distances.
        const from = size >> 1;
        expect(Array.from(store.distancesFrom(probe, from, size - from))).toEqual(expected.slice(from));
        expect(Array.from(hammingTable(store.codes, words, probe, size))).toEqual(expected);
      },
    ),
    { numRuns: 200 },
  );
});

it("extreme codes: all bits equal, all bits different (384 bits), and an odd number of words has no store", () => {
  const store = HammingStore.create(12, 2)!;
  store.codes.fill(0xffffffff, 0, 12);
  const zero = new Uint32Array(12);
  expect(Array.from(store.distances(zero, 2))).toEqual([384, 0]);
  expect(HammingStore.create(3, 10)).toBeNull();
});
