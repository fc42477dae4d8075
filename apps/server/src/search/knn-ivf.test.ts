import { expect, it } from "vitest";
import { seededRandom } from "../testing/random.js";
import { asymmetricScores, asymmetricTable, BinaryIvf, farScan, FarSideBuilder } from "./knn-ivf.js";

const words = 4;
const random = seededRandom(7);
/** 2,000 codes around 20 random centres (a few bits flipped), rowids 10, 20, 30... */
const centres = Array.from({ length: 20 }, () => Uint32Array.from({ length: words }, () => (random() * 2 ** 32) >>> 0));
const codes = new Uint32Array(2000 * words);
for (let i = 0; i < 2000; i++)
  for (let w = 0; w < words; w++) {
    let x = centres[i % 20]![w]!;
    for (let b = 0; b < 32; b++) if (random() < 0.05) x ^= 1 << b;
    codes[i * words + w] = x >>> 0;
  }
const vrows = Float64Array.from({ length: 2000 }, (_, i) => (i + 1) * 10);

it("holds every code exactly once, in lists of codes alike, and scans the nearest lists first", async () => {
  const ivf = (await BinaryIvf.build({ codes, vrows, size: 2000, words }, { lists: 20 }))!;
  expect(ivf.lists).toBe(20);
  expect(ivf.maxVrow).toBe(20_000);
  const seen: number[] = [];
  const all = Uint32Array.from({ length: 20 }, (_, c) => c);
  expect(
    ivf.scan(
      all,
      Infinity,
      (_codes, _store, _from, count) => new Float32Array(count),
      (vrow) => seen.push(vrow),
    ),
  ).toBe(2000);
  expect(seen.sort((a, b) => a - b)).toEqual(Array.from(vrows));
  // The first list scanned for a centre's direction (±1 per bit) holds that centre's codes, all of them.
  for (const c of [0, 7, 19]) {
    const direction = Array.from({ length: words * 32 }, (_, b) => ((centres[c]![b >>> 5]! >>> (b & 31)) & 1 ? 1 : -1));
    const first: number[] = [];
    ivf.scan(
      ivf.listOrder(direction),
      1,
      (_codes, _store, _from, count) => new Float32Array(count),
      (vrow) => first.push(vrow),
    );
    expect(first.sort((a, b) => a - b)).toEqual(Array.from(vrows).filter((_, i) => i % 20 === c));
  }
});

it("skips the rows touched since the build and remembers them; ignores rows above its highest", async () => {
  const ivf = (await BinaryIvf.build({ codes, vrows, size: 2000, words }, { lists: 20 }))!;
  ivf.touch(30);
  ivf.touch(35); // never indexed: only remembered
  ivf.touch(20_010); // above: the caller's tail
  expect([...ivf.changed].sort((a, b) => a - b)).toEqual([30, 35]);
  const seen = new Set<number>();
  ivf.scan(
    Uint32Array.from({ length: 20 }, (_, c) => c),
    Infinity,
    (_codes, _store, _from, count) => new Float32Array(count),
    (vrow) => seen.add(vrow),
  );
  expect(seen.size).toBe(1999);
  expect(seen.has(30)).toBe(false);
});

it("gives up a build when asked between slices", async () => {
  let asked = 0;
  const built = await BinaryIvf.build(
    { codes, vrows, size: 2000, words },
    { lists: 20, sliceMs: 0, pause: async () => {}, cancelled: () => ++asked > 2 },
  );
  expect(built).toBeNull();
});

it("scores codes asymmetrically: the sum of the query's values, + where a bit is set, - where not", () => {
  const values = Array.from({ length: words * 32 }, () => random() - 0.5);
  const table = asymmetricTable(values, words);
  const scores = asymmetricScores(table, codes, words, 100, 5);
  const negated = asymmetricScores(table, codes, words, 100, 5, true);
  for (let i = 0; i < 5; i++) {
    let expected = 0;
    for (let b = 0; b < words * 32; b++) expected += (codes[(100 + i) * words + (b >>> 5)]! >>> (b & 31)) & 1 ? values[b]! : -values[b]!;
    expect(scores[i]).toBeCloseTo(expected, 4);
    expect(negated[i]).toBeCloseTo(-expected, 4);
  }
});

it("estimates least_similar's similarities around each list's centroid, finer than the codes around the mean, and scans the farthest lists first", async () => {
  // 2,000 vectors of 128 dimensions: the centres' ±1 codes above as directions, plus noise.
  const dims = words * 32;
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const vectors = Array.from({ length: 2000 }, (_, i) =>
    Array.from({ length: dims }, (_, b) => ((centres[i % 20]![b >>> 5]! >>> (b & 31)) & 1 ? 1 : -1) + 0.6 * normal()),
  );
  const unit = (v: number[]) => {
    const n = Math.sqrt(v.reduce((t, x) => t + x * x, 0));
    return v.map((x) => x / n);
  };
  const mean = new Float32Array(dims);
  for (const v of vectors) unit(v).forEach((x, d) => (mean[d]! += x / vectors.length));
  const centred = new Uint32Array(2000 * words);
  vectors.forEach((v, i) => unit(v).forEach((x, d) => (x - mean[d]! > 0 ? (centred[i * words + (d >>> 5)]! |= 1 << (d & 31)) : 0)));
  const ivf = (await BinaryIvf.build({ codes: centred, vrows, size: 2000, words }, { lists: 20 }))!;
  const far = new FarSideBuilder(ivf, dims, mean);
  for (const vrow of far.sample()) far.centroid(vrow, vectors[vrow / 10 - 1]!);
  vectors.forEach((v, i) => far.add(vrows[i]!, v));
  ivf.farSide = far.finish();
  const query = unit(vectors[3]!);
  const exact = (vrow: number) => unit(vectors[vrow / 10 - 1]!).reduce((t, x, d) => t + x * query[d]!, 0);
  const table = asymmetricTable(query, words);
  const meanDot = query.reduce((t, x, d) => t + x * mean[d]!, 0);
  const tail = asymmetricScores(table, centred, words, 0, 2000);
  let errorFar = 0,
    errorMean = 0,
    seen = 0;
  const all = farScan(ivf.farScanData, query, Infinity, 2000);
  all.vrows.forEach((vrow, i) => {
    seen++;
    errorFar += Math.abs(all.costs[i]! - exact(vrow)) / 2000;
    errorMean += Math.abs(meanDot + ivf.farSide!.tailScale * tail[vrow / 10 - 1]! - exact(vrow)) / 2000;
  });
  expect(all.scanned).toBe(2000);
  expect(seen).toBe(2000);
  expect(errorFar).toBeLessThan(0.04);
  expect(errorFar).toBeLessThan(errorMean * 0.75);
  // The `count` of least estimate, in that order (ties by rowid); stale rows left out.
  expect(Array.from(all.costs)).toEqual(Array.from(all.costs).sort((a, b) => a - b));
  expect(Array.from(farScan(ivf.farScanData, query, Infinity, 20).vrows)).toEqual(Array.from(all.vrows.subarray(0, 20)));
  ivf.touch(all.vrows[0]!);
  expect(Array.from(farScan(ivf.farScanData, query, Infinity, 20).vrows)).toEqual(Array.from(all.vrows.subarray(1, 21)));
  // The first lists scanned hold the least similar vectors: most of the 20 least similar are in the first tenth scanned (2 by chance).
  const order = Array.from(farScan(ivf.farScanData, query, 200, 2000).vrows);
  const least = Array.from(vrows)
    .sort((a, b) => exact(a) - exact(b))
    .slice(0, 20);
  expect(least.filter((v) => order.includes(v)).length).toBeGreaterThanOrEqual(15);
});
