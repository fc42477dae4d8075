import SQLite from "better-sqlite3";
import { expect, it } from "vitest";
import { seededRandom } from "../testing/random.js";
import { planeScorer } from "./bit-planes.js";
import {
  addToCentroid,
  asymmetricScores,
  asymmetricTable,
  BinaryIvf,
  FAR_SCAN_HELPERS,
  farScan,
  farSidePart,
  type FarSideJob,
  FarSideBuilder,
  residualCode,
} from "./knn-ivf.js";

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

/** 2,000 vectors of 128 dimensions: the centres' ±1 codes as directions, plus noise; their mean and their codes around it. */
function clustered() {
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
  return { dims, vectors, unit, mean, centred };
}

/** `clustered()`'s index of 20 lists with its far side, built on the request thread. */
async function clusteredWithFarSide() {
  const set = clustered();
  const ivf = (await BinaryIvf.build({ codes: set.centred, vrows, size: 2000, words }, { lists: 20 }))!;
  const far = new FarSideBuilder(ivf, set.dims, set.mean);
  for (const vrow of far.sample()) far.centroid(vrow, set.vectors[vrow / 10 - 1]!);
  set.vectors.forEach((v, i) => far.add(vrows[i]!, v));
  ivf.farSide = far.finish();
  return { ...set, ivf };
}

it("estimates least_similar's similarities around each list's centroid, finer than the codes around the mean, and scans the farthest lists first", async () => {
  const { vectors, unit, mean, centred, ivf } = await clusteredWithFarSide();
  const query = unit(vectors[3]!);
  const exact = (vrow: number) => unit(vectors[vrow / 10 - 1]!).reduce((t, x, d) => t + x * query[d]!, 0);
  const table = asymmetricTable(query, words);
  const meanDot = query.reduce((t, x, d) => t + x * mean[d]!, 0);
  const tail = asymmetricScores(table, centred, words, 0, 2000);
  let errorFar = 0,
    errorMean = 0,
    seen = 0;
  const all = farScan(ivf.farScanData, query, Infinity, 2000, FAR_SCAN_HELPERS);
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
  expect(Array.from(farScan(ivf.farScanData, query, Infinity, 20, FAR_SCAN_HELPERS).vrows)).toEqual(Array.from(all.vrows.subarray(0, 20)));
  ivf.touch(all.vrows[0]!);
  expect(Array.from(farScan(ivf.farScanData, query, Infinity, 20, FAR_SCAN_HELPERS).vrows)).toEqual(Array.from(all.vrows.subarray(1, 21)));
  // The first lists scanned hold the least similar vectors: most of the 20 least similar are in the first tenth scanned (2 by chance).
  const order = Array.from(farScan(ivf.farScanData, query, 200, 2000, FAR_SCAN_HELPERS).vrows);
  const least = Array.from(vrows)
    .sort((a, b) => exact(a) - exact(b))
    .slice(0, 20);
  expect(least.filter((v) => order.includes(v)).length).toBeGreaterThanOrEqual(15);
});

it("computes the far side beside the assignment (two parts sharing the work, each vector as the assignment reaches it), in snapshot order, then reorders it into the index's positions", async () => {
  const { dims, vectors, unit, mean, centred } = clustered();
  // The vectors in a real table (rowids 10, 20...), with another setting's rows in between.
  const db = new SQLite(":memory:");
  db.exec("CREATE TABLE record_vectors (vector_settings_id TEXT NOT NULL, vector BLOB NOT NULL)");
  const put = db.prepare("INSERT INTO record_vectors (rowid, vector_settings_id, vector) VALUES (?, ?, ?)");
  vectors.forEach((v, i) => {
    put.run(vrows[i]!, "emb", Buffer.from(new Float32Array(v).buffer));
    put.run(vrows[i]! + 5, "other", Buffer.from(new Float32Array(dims).fill(1).buffer));
  });
  const query = (sql: string, params: unknown[]) =>
    db
      .prepare(sql)
      .raw()
      .all(...params) as unknown[][];
  const state = new Int32Array(4);
  const assigned = new Uint16Array(2000);
  let parts: Promise<{ tailScale: number | null } | null>[] = [];
  let job: FarSideJob | null = null;
  const waits: number[] = [];
  const ivf = (await BinaryIvf.build(
    { codes: centred, vrows, size: 2000, words },
    {
      lists: 20,
      sliceMs: 0,
      assigned,
      progress: (count) => Atomics.store(state, 0, count),
      trained: (samplePositions, sampleLists, lists) => {
        job = {
          settingsId: "emb",
          dimensions: dims,
          words,
          lists,
          mean,
          vrows,
          assigned,
          samplePositions,
          sampleLists,
          state,
          centroids: new Float32Array(lists * dims),
          codes: new Uint32Array(2000 * words),
          scales: new Float32Array(2000),
          chunk: 300,
        };
        const pause = (ms: number) => {
          if (ms > 0) waits.push(Atomics.load(state, 0));
          return new Promise<void>((resolve) => setImmediate(resolve));
        };
        parts = [0, 1].map(() => farSidePart(job!, query, pause, residualCode, addToCentroid));
      },
    },
  ))!;
  const answers = await Promise.all(parts);
  // One part read the sample (the tail's scale); the other waited for its centroids, and both for the assignment.
  expect(answers.filter((a) => a!.tailScale !== null)).toHaveLength(1);
  expect(waits.some((assignedThen) => assignedThen < 2000)).toBe(true);
  const built = job! as FarSideJob;
  ivf.farSide = FarSideBuilder.fromSnapshotOrder(ivf, { ...built, tailScale: answers.find((a) => a!.tailScale !== null)!.tailScale! });
  const far = ivf.farSide;
  // Each position holds the code and scale of its own vector around its own list's centroid.
  const code = new Uint32Array(words);
  for (let p = 0; p < 2000; p++) {
    const vrow = ivf.rowsAt(p, 1)[0]!;
    // As stored (float32).
    const scale = residualCode(new Float32Array(vectors[vrow / 10 - 1]!), far.centroids, ivf.listAt(p) * dims, dims, code, 0);
    expect(Array.from(far.codes.subarray(p * words, (p + 1) * words))).toEqual(Array.from(code));
    expect(far.scales[p]).toBeCloseTo(scale, 5);
  }
  // A finer estimate than the codes around the mean, as the request thread's far side (test above).
  const q = unit(vectors[3]!);
  const exact = (vrow: number) => unit(vectors[vrow / 10 - 1]!).reduce((t, x, d) => t + x * q[d]!, 0);
  const table = asymmetricTable(q, words);
  const meanDot = q.reduce((t, x, d) => t + x * mean[d]!, 0);
  const tail = asymmetricScores(table, centred, words, 0, 2000);
  const scores = asymmetricScores(table, far.codes, words, 0, 2000);
  let errorFar = 0,
    errorMean = 0;
  for (let p = 0; p < 2000; p++) {
    const vrow = ivf.rowsAt(p, 1)[0]!;
    const c = ivf.listAt(p);
    const toCentroid = q.reduce((t, x, d) => t + x * far.centroids[c * dims + d]!, 0);
    errorFar += Math.abs(toCentroid + far.scales[p]! * scores[p]! - exact(vrow)) / 2000;
    errorMean += Math.abs(meanDot + far.tailScale * tail[vrow / 10 - 1]! - exact(vrow)) / 2000;
  }
  expect(errorFar).toBeLessThan(0.04);
  expect(errorFar).toBeLessThan(errorMean * 0.75);
  db.close();
});

it("abandons a far side's part when asked", async () => {
  const state = Int32Array.from([0, 0, 2, 1]);
  const job = { state, vrows: new Float64Array(10), chunk: 5 } as unknown as FarSideJob;
  const never = () => {
    throw new Error("no read once abandoned");
  };
  expect(await farSidePart(job, never, async () => {}, residualCode, addToCentroid)).toBeNull();
});

it("scans least_similar's lists alike with the popcounts of WebAssembly and without them (a store without WebAssembly)", async () => {
  const { vectors, unit, ivf } = await clusteredWithFarSide();
  const withoutWasm = { ...FAR_SCAN_HELPERS, scorer: planeScorer(null) };
  for (const [i, target, count] of [
    [3, Infinity, 2000],
    [17, 300, 50],
    [500, 1, 10],
  ] as const) {
    const query = unit(vectors[i]!);
    const a = farScan(ivf.farScanData, query, target, count, FAR_SCAN_HELPERS);
    const b = farScan(ivf.farScanData, query, target, count, withoutWasm);
    expect(Array.from(a.vrows)).toEqual(Array.from(b.vrows));
    expect(Array.from(a.costs)).toEqual(Array.from(b.costs));
    expect(a.scanned).toBe(b.scanned);
    expect(a.vrows.length).toBe(Math.min(count, a.scanned));
  }
});
