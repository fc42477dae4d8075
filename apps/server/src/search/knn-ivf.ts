import { HammingStore, hammingTable } from "./hamming.js";
import { type PlaneScorer, planeScorer, PLANES_MODULE, queryPlanes } from "./bit-planes.js";

/**
 * An inverted file over binary codes (sqlite-knn.ts): the codes of a vector setting grouped in lists,
 * one per centroid, so that a similarity search scores the lists nearest to the query (a few % of the
 * codes) instead of every code. Built once from a snapshot of the codes (`BinaryIvf.build`, in slices
 * that yield to other work): k-means in Hamming space on a sample (binary centroids: the majority bit
 * of their members), then every code assigned to its nearest centroid and copied, list by list, into
 * memory of its own where the popcount of hamming.ts scans a list as one range. Lists are chosen by
 * the query's dot product with each list's mean code (±1 per bit: the asymmetric score of the list's
 * average member). The index does not change after the build: rows changed or removed since are
 * marked stale here (`touch`) and read from the live codes by the caller, as are rows added since
 * (rowids above `maxVrow`); the caller rebuilds it when those are many.
 */
export class BinaryIvf {
  /** Positions whose row changed or was removed since the build (skipped by `scan`). */
  readonly stale: Uint8Array;
  /** Rowids at or below `maxVrow` written or removed since the build: the caller reads them from its live codes. */
  readonly changed = new Set<number>();
  /** The finer estimator for least_similar (`FarSideBuilder`), once the caller has read the vectors for it. */
  farSide: FarSide | null = null;

  private constructor(
    readonly words: number,
    readonly size: number,
    /** List c holds positions offsets[c] to offsets[c + 1] - 1. */
    readonly offsets: Uint32Array,
    private readonly store: HammingStore | null,
    private readonly codes: Uint32Array,
    /** The rowid at each position. */
    private readonly vrowAt: Float64Array,
    /** The indexed rowids, ascending, and the position of each. */
    private readonly sortedVrows: Float64Array,
    private readonly positionOf: Uint32Array,
    /** Per list, the mean of its codes' bits as ±1 (words * 32 per list). */
    private readonly means: Float32Array,
    /** The highest rowid indexed: rows above it are the caller's tail. */
    readonly maxVrow: number,
  ) {
    this.stale = shared(Uint8Array, size);
  }

  get lists(): number {
    return this.offsets.length - 1;
  }

  /** Bytes held by the far side's estimator (least_similar), once it is in. */
  get farSideBytes(): number {
    const far = this.farSide;
    return far ? far.codes.byteLength + far.scales.byteLength + far.centroids.byteLength : 0;
  }

  /** Bytes held without the far side (`farSideBytes`): the codes (with the popcount's distance buffer), rowids, positions, marks, list means. */
  get memoryBytes(): number {
    return (
      (this.store ? this.store.memoryBytes : this.codes.byteLength) +
      this.vrowAt.byteLength +
      this.sortedVrows.byteLength +
      this.positionOf.byteLength +
      this.stale.byteLength +
      this.means.byteLength +
      this.offsets.byteLength
    );
  }

  /** A row at or below `maxVrow` was written or removed: its indexed code (if any) no longer counts. */
  touch(vrow: number): void {
    if (vrow > this.maxVrow) return;
    this.changed.add(vrow);
    const p = this.positionOfRow(vrow);
    if (p >= 0) this.stale[p] = 1;
  }

  /** The position of an indexed rowid; -1 when it is not indexed. */
  positionOfRow(vrow: number): number {
    let lo = 0,
      hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.sortedVrows[mid]!;
      if (v === vrow) return this.positionOf[mid]!;
      if (v < vrow) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** The position of the snapshot's `index`-th code (the build's input order). */
  positionOfIndex(index: number): number {
    return this.positionOf[index]!;
  }

  /** The list holding a position. */
  listAt(position: number): number {
    let lo = 0,
      hi = this.lists - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.offsets[mid]! <= position) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The rowids of the positions `from` to `from + count - 1` (a list's members: `offsets`). */
  rowsAt(from: number, count: number): Float64Array {
    return this.vrowAt.subarray(from, from + count);
  }

  /** What `farScan` reads (the far side's estimator, the lists, the rowids and stale marks: shared memory a read thread can scan). Needs `farSide`. */
  get farScanData(): FarScanData {
    const far = this.farSide!;
    const { words, offsets, vrowAt, stale } = this;
    return { words, dimensions: far.dimensions, offsets, centroids: far.centroids, codes: far.codes, scales: far.scales, vrowAt, stale };
  }

  /** The lists in the order a query scans them: by the dot product of `direction` with each list's mean code, highest first. */
  listOrder(direction: ArrayLike<number>): Uint32Array {
    const bits = this.words * 32;
    const lists = this.lists;
    const dims = Math.min(bits, direction.length);
    const q = Float32Array.from({ length: dims }, (_, d) => direction[d]!);
    const scores = new Float64Array(lists);
    const { means } = this;
    for (let c = 0, o = 0; c < lists; c++, o += bits) {
      let s = 0;
      for (let d = 0; d < dims; d++) s += means[o + d]! * q[d]!;
      scores[c] = s;
    }
    return Uint32Array.from({ length: lists }, (_, c) => c).sort((a, b) => scores[b]! - scores[a]! || a - b);
  }

  /**
   * The live codes of the first lists in `order` until at least `target` codes were scored: `cost`
   * gives the costs of a range of positions (lower is nearer; Hamming distances or negated scores).
   * Calls `emit` with each one's rowid and cost. Returns the number of codes scored.
   */
  scan(
    order: Uint32Array,
    target: number,
    cost: (codes: Uint32Array, store: HammingStore | null, from: number, count: number) => ArrayLike<number>,
    emit: (vrow: number, cost: number) => void,
  ): number {
    let scanned = 0;
    for (let k = 0; k < order.length && scanned < target; k++) {
      const c = order[k]!;
      const from = this.offsets[c]!;
      const count = this.offsets[c + 1]! - from;
      if (count === 0) continue;
      const costs = cost(this.codes, this.store, from, count);
      const { stale, vrowAt } = this;
      for (let i = 0; i < count; i++) if (stale[from + i] === 0) emit(vrowAt[from + i]!, costs[i]!);
      scanned += count;
    }
    return scanned;
  }

  /**
   * Builds the index of `size` codes of `words` 32-bit words (`codes`, with their rowids ascending in
   * `vrows`; both are kept or copied, not changed). Null when `cancelled` said so between two slices.
   */
  static async build(
    snapshot: { codes: Uint32Array; vrows: Float64Array; size: number; words: number },
    options: IvfBuildOptions = {},
  ): Promise<BinaryIvf | null> {
    const { codes, vrows, size: n, words } = snapshot;
    const bits = words * 32;
    const lists = Math.max(1, Math.min(n, options.lists ?? Math.min(4096, Math.max(16, Math.round(Math.sqrt(n))))));
    const pause = options.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
    let sliceStart = performance.now();
    /** Yields after ~8 ms of work; false when the build is to be abandoned. */
    const breathe = async (): Promise<boolean> => {
      if (performance.now() - sliceStart < (options.sliceMs ?? 8)) return true;
      await pause();
      sliceStart = performance.now();
      return !options.cancelled?.();
    };

    // The centroids, trained on a sample spread over the rowids.
    const sampleSize = Math.min(n, lists * (options.samplePerList ?? 32));
    const sample = new Uint32Array(sampleSize * words);
    for (let j = 0; j < sampleSize; j++) {
      const i = Math.floor(((j + 0.5) * n) / sampleSize);
      sample.set(codes.subarray(i * words, (i + 1) * words), j * words);
    }
    const centroidStore = HammingStore.create(words, lists);
    const centroids = centroidStore?.codes ?? new Uint32Array(lists * words);
    for (let c = 0; c < lists; c++) {
      const j = Math.floor(((c + 0.5) * sampleSize) / lists);
      centroids.set(sample.subarray(j * words, (j + 1) * words), c * words);
    }
    const nearestCentroid = (code: Uint32Array): number => {
      const d = centroidStore ? centroidStore.distances(code, lists) : hammingTable(centroids, words, code, lists);
      let best = 0;
      let bestD = d[0]!;
      for (let c = 1; c < lists; c++)
        if (d[c]! < bestD) {
          bestD = d[c]!;
          best = c;
        }
      return best;
    };
    const counts = new Int32Array(lists * bits);
    const members = new Uint32Array(lists);
    const addBits = (c: number, code: Uint32Array, at: number) => {
      members[c]!++;
      const base = c * bits;
      for (let w = 0; w < words; w++) {
        let x = code[at + w]!;
        while (x !== 0) {
          const low = x & -x;
          counts[base + w * 32 + (31 - Math.clz32(low))]!++;
          x ^= low;
        }
      }
    };
    for (let iteration = 0; iteration < (options.iterations ?? 6); iteration++) {
      counts.fill(0);
      members.fill(0);
      for (let j = 0; j < sampleSize; j++) {
        addBits(nearestCentroid(sample.subarray(j * words, (j + 1) * words)), sample, j * words);
        if ((j & 255) === 255 && !(await breathe())) return null;
      }
      let reseed = 0;
      for (let c = 0; c < lists; c++) {
        const code = centroids.subarray(c * words, (c + 1) * words);
        if (members[c] === 0) {
          // An empty list takes a sample code of its own (spread over the sample).
          const j = (reseed++ * 7919 + iteration * 104729) % sampleSize;
          code.set(sample.subarray(j * words, (j + 1) * words));
          continue;
        }
        code.fill(0);
        for (let b = 0; b < bits; b++) if (counts[c * bits + b]! * 2 > members[c]!) code[b >>> 5]! |= 1 << (b & 31);
      }
    }
    if (options.trained) {
      // The sample's lists as the assignment below gives them (the far side's centroids: sqlite-knn.ts).
      const positions = Uint32Array.from({ length: sampleSize }, (_, j) => Math.floor(((j + 0.5) * n) / sampleSize));
      const sampleLists = Uint16Array.from({ length: sampleSize }, (_, j) => nearestCentroid(sample.subarray(j * words, (j + 1) * words)));
      options.trained(positions, sampleLists, lists);
    }

    // Every code to its nearest centroid; the lists' mean codes from their members' bits.
    const assigned = options.assigned ?? new Uint16Array(n);
    counts.fill(0);
    members.fill(0);
    for (let i = 0; i < n; i++) {
      const c = nearestCentroid(codes.subarray(i * words, (i + 1) * words));
      assigned[i] = c;
      addBits(c, codes, i * words);
      if ((i & 1023) === 1023) {
        options.progress?.(i + 1);
        if (!(await breathe())) return null;
      }
    }
    options.progress?.(n);
    const offsets = new Uint32Array(lists + 1);
    for (let c = 0; c < lists; c++) offsets[c + 1] = offsets[c]! + members[c]!;
    const means = new Float32Array(lists * bits);
    for (let c = 0; c < lists; c++)
      if (members[c]! > 0) for (let b = 0; b < bits; b++) means[c * bits + b] = (2 * counts[c * bits + b]!) / members[c]! - 1;

    // The codes copied list by list.
    let store: HammingStore | null = null;
    try {
      store = HammingStore.create(words, n);
    } catch {
      // No WebAssembly memory to be had: the table's distances need none.
    }
    const listed = store?.codes ?? new Uint32Array(n * words);
    const vrowAt = shared(Float64Array, n);
    const positionOf = new Uint32Array(n);
    const cursor = offsets.slice(0, lists);
    for (let i = 0; i < n; i++) {
      const p = cursor[assigned[i]!]!++;
      listed.set(codes.subarray(i * words, (i + 1) * words), p * words);
      vrowAt[p] = vrows[i]!;
      positionOf[i] = p;
    }
    if (options.cancelled?.()) return null;
    return new BinaryIvf(words, n, offsets, store, listed, vrowAt, vrows, positionOf, means, n > 0 ? vrows[n - 1]! : 0);
  }
}

/**
 * least_similar's estimator over an index (`BinaryIvf.farSide`). The far side of a query is flat (the
 * 50 least similar of 1M differ little from the next thousands), where the sign codes of a vector
 * minus the setting's mean rank poorly. Here each indexed vector x̂ (normalised) is coded around its
 * list's centroid c instead (float, from a sample of the list): r = x̂ - c, smaller than x̂ - mean, and
 * q·x̂ = q·c + q·r ≈ q·c + s·(q·sign(r)), with s = |r|²/|r|₁ (the estimate of the projection of r on
 * its own sign vector, RaBitQ's correction) kept per vector. The query's centroid products also order
 * the lists (`scanFar`). Rows added or changed since the build have only the setting's codes: their
 * estimate is q·mean + `tailScale`·(q·code), `tailScale` the mean s of those codes.
 */
export interface FarSide {
  dimensions: number;
  /** Per list, its centroid (dimensions floats). */
  centroids: Float32Array;
  /** Per position, the sign code of the vector minus its list's centroid (words per position). */
  codes: Uint32Array;
  /** Per position, |r|²/|r|₁. */
  scales: Float32Array;
  /** The mean |x̂ - mean|²/|x̂ - mean|₁ of a sample of the indexed vectors (up to 32 per list), for the rows only the setting's codes hold. */
  tailScale: number;
}

/**
 * Builds an index's `FarSide` from its vectors: `centroid` with a sample of each list's vectors
 * (`sample` gives the rowids to read), then `add` with every indexed vector (any order; rows not
 * indexed are ignored), then `finish`. `mean` is the setting's centre (its codes' `x̂ - mean`); the tail's scale
 * is the sample's.
 */
export class FarSideBuilder {
  private readonly sums: Float64Array;
  private readonly counts: Uint32Array;
  private centroids: Float32Array | null = null;
  private readonly codes: Uint32Array;
  private readonly scales: Float32Array;
  private tailSum = 0;
  private added = 0;

  constructor(
    private readonly ivf: BinaryIvf,
    private readonly dimensions: number,
    private readonly mean: Float32Array,
  ) {
    this.sums = new Float64Array(ivf.lists * dimensions);
    this.counts = new Uint32Array(ivf.lists);
    this.codes = shared(Uint32Array, ivf.size * ivf.words);
    this.scales = shared(Float32Array, ivf.size);
  }

  /** The rowids whose vectors make the centroids: up to `perList` of each list, spread over it. */
  sample(perList = 32): number[] {
    const out: number[] = [];
    for (let c = 0; c < this.ivf.lists; c++) {
      const from = this.ivf.offsets[c]!;
      const count = this.ivf.offsets[c + 1]! - from;
      const take = Math.min(count, perList);
      const rows = this.ivf.rowsAt(from, count);
      for (let j = 0; j < take; j++) out.push(rows[Math.floor(((j + 0.5) * count) / take)]!);
    }
    return out;
  }

  /** A sampled vector (of `sample`), for its list's centroid and the tail's scale (`FarSide.tailScale`). */
  centroid(vrow: number, vector: ArrayLike<number>): void {
    const p = this.ivf.positionOfRow(vrow);
    if (p < 0) return;
    const c = this.ivf.listAt(p);
    const scale = addToCentroid(vector, this.mean, this.sums, c * this.dimensions, this.dimensions);
    this.counts[c]!++;
    if (scale >= 0) {
      this.tailSum += scale;
      this.added++;
    }
  }

  private centroidArray(): Float32Array {
    return (this.centroids ??= Float32Array.from(this.sums, (x, i) => x / Math.max(this.counts[Math.floor(i / this.dimensions)]!, 1)));
  }

  /** An indexed vector: its code around its list's centroid and its scale. */
  add(vrow: number, vector: ArrayLike<number>): void {
    const p = this.ivf.positionOfRow(vrow);
    if (p < 0) return;
    this.scales[p] = residualCode(
      vector,
      this.centroidArray(),
      this.ivf.listAt(p) * this.dimensions,
      this.dimensions,
      this.codes,
      p * this.ivf.words,
    );
  }

  /**
   * The far side of `ivf` from codes and scales computed in snapshot order (`farSidePart`, on other
   * threads): reordered in place into the index's positions.
   */
  static fromSnapshotOrder(
    ivf: BinaryIvf,
    part: { dimensions: number; centroids: Float32Array; codes: Uint32Array; scales: Float32Array; tailScale: number },
  ): FarSide {
    const { codes, scales } = part;
    const words = ivf.words;
    const done = new Uint8Array(ivf.size);
    const code = new Uint32Array(words);
    const next = new Uint32Array(words);
    // Each cycle of the permutation: the code at snapshot index i goes to position positionOf(i).
    for (let start = 0; start < ivf.size; start++) {
      if (done[start]) continue;
      code.set(codes.subarray(start * words, (start + 1) * words));
      let scale = scales[start]!;
      for (let i = start; ;) {
        const p = ivf.positionOfIndex(i);
        done[p] = 1;
        next.set(codes.subarray(p * words, (p + 1) * words));
        const nextScale = scales[p]!;
        codes.set(code, p * words);
        scales[p] = scale;
        if (p === start) break;
        code.set(next);
        scale = nextScale;
        i = p;
      }
    }
    return { dimensions: part.dimensions, centroids: part.centroids, codes, scales, tailScale: part.tailScale };
  }

  finish(): FarSide {
    const centroids = shared(Float32Array, this.sums.length);
    centroids.set(this.centroidArray());
    const tailScale = this.added > 0 ? this.tailSum / this.added : 0;
    return { dimensions: this.dimensions, centroids, codes: this.codes, scales: this.scales, tailScale };
  }
}

/**
 * A sampled vector normalised into its list's centroid sums (`sums` from `o`); returns its
 * |x̂ - mean|²/|x̂ - mean|₁ (the tail's scale, `FarSide.tailScale`), -1 when x̂ is the mean.
 * Self-contained: the far side's threads evaluate its source (sqlite-read-pool.ts).
 */
export function addToCentroid(
  vector: ArrayLike<number>,
  mean: ArrayLike<number>,
  sums: Float64Array,
  o: number,
  dimensions: number,
): number {
  let s = 0;
  for (let d = 0; d < vector.length; d++) s += vector[d]! * vector[d]!;
  const norm = Math.sqrt(s) || 1;
  let g1 = 0,
    g2 = 0;
  for (let d = 0; d < dimensions; d++) {
    const x = (vector[d] ?? 0) / norm;
    sums[o + d]! += x;
    const g = x - (mean[d] ?? 0);
    g1 += Math.abs(g);
    g2 += g * g;
  }
  return g1 > 0 ? g2 / g1 : -1;
}

/**
 * A vector's code around its list's centroid (`centroids` from `o`), written at `codes[at...]`;
 * returns its scale |r|²/|r|₁ (`FarSide`). A word of the code at a time (~1.5 us per 384-dimension
 * vector instead of ~7 with a write per bit). Self-contained (sqlite-read-pool.ts evaluates it).
 */
export function residualCode(
  vector: ArrayLike<number>,
  centroids: Float32Array,
  o: number,
  dimensions: number,
  codes: Uint32Array,
  at: number,
): number {
  let s = 0;
  for (let d = 0; d < vector.length; d++) s += vector[d]! * vector[d]!;
  const inverse = 1 / (Math.sqrt(s) || 1);
  const present = Math.min(dimensions, vector.length);
  let l1 = 0,
    l2 = 0;
  for (let w = 0; w * 32 < dimensions; w++, at++) {
    let bits = 0;
    for (let d = w * 32, end = Math.min(d + 32, dimensions); d < end; d++) {
      const r = (d < present ? vector[d]! * inverse : 0) - centroids[o + d]!;
      l1 += Math.abs(r);
      l2 += r * r;
      if (r > 0) bits |= 1 << (d & 31);
    }
    codes[at] = bits;
  }
  return l1 > 0 ? l2 / l1 : 0;
}

/**
 * A far side's pass on other threads (sqlite-knn.ts; sqlite-read-pool.ts runs it), started once the
 * index's centroids are trained, while the request thread assigns the codes to their lists: the
 * lists' centroids from the vectors of the k-means' sample, then every indexed vector read again in
 * rowid order, a chunk at a time (the threads share the work), each coded around its list's
 * centroid as soon as the assignment has reached it. Codes and scales in snapshot order (shared
 * memory; `FarSideBuilder.fromSnapshotOrder` reorders them).
 */
export interface FarSideJob {
  settingsId: string;
  dimensions: number;
  words: number;
  lists: number;
  /** The setting's centre (its codes' x̂ - mean). */
  mean: Float32Array;
  /** The snapshot's rowids, ascending. */
  vrows: Float64Array;
  /** Each snapshot position's list, written by the assignment up to `state[0]`. */
  assigned: Uint16Array;
  /** The k-means sample: snapshot positions and their lists. */
  samplePositions: Uint32Array;
  sampleLists: Uint16Array;
  /** Int32 slots: [0] positions assigned, [1] next position to claim, [2] centroids (0 not started, 1 being read, 2 in), [3] 1: abandon. */
  state: Int32Array;
  centroids: Float32Array;
  codes: Uint32Array;
  scales: Float32Array;
  /** Positions claimed at a time. */
  chunk: number;
}

/** Slots of `FarSideJob.state`. */
export const FAR_ASSIGNED = 0;
export const FAR_CANCEL = 3;

/**
 * One thread's share of a `FarSideJob`: null when abandoned, else the tail's scale when this thread
 * read the sample (null otherwise). `query` runs a read-only statement (rows as arrays), `pause`
 * waits (0: yields to the thread's other jobs). Self-contained: no closure, no import (the threads
 * evaluate its source); `residual` and `sampled` are `residualCode` and `addToCentroid`.
 */
export async function farSidePart(
  job: FarSideJob,
  query: (sql: string, params: unknown[]) => unknown[][],
  pause: (ms: number) => Promise<void>,
  residual: typeof residualCode,
  sampled: typeof addToCentroid,
): Promise<{ tailScale: number | null } | null> {
  const { state, dimensions, words, vrows, assigned, centroids, codes, scales } = job;
  const n = vrows.length;
  const batch = 2000;
  const floats = (b: Uint8Array) =>
    b.byteOffset % 4 === 0 ? new Float32Array(b.buffer, b.byteOffset, b.byteLength >> 2) : new Float32Array(new Uint8Array(b).buffer);
  let tailScale: number | null = null;
  if (Atomics.compareExchange(state, 2, 0, 1) === 0) {
    const sums = new Float64Array(job.lists * dimensions);
    const counts = new Uint32Array(job.lists);
    let tailSum = 0,
      added = 0;
    for (let at = 0; at < job.samplePositions.length; at += batch) {
      const listOf = new Map<number, number>();
      const end = Math.min(job.samplePositions.length, at + batch);
      for (let j = at; j < end; j++) listOf.set(vrows[job.samplePositions[j]!]!, job.sampleLists[j]!);
      const rows = query(
        "SELECT v.rowid, v.vector FROM json_each(?) AS c CROSS JOIN record_vectors v ON v.rowid = c.value WHERE v.vector_settings_id = ?",
        [JSON.stringify([...listOf.keys()]), job.settingsId],
      );
      for (const [vrow, blob] of rows) {
        const c = listOf.get(vrow as number)!;
        const scale = sampled(floats(blob as Uint8Array), job.mean, sums, c * dimensions, dimensions);
        counts[c]!++;
        if (scale >= 0) {
          tailSum += scale;
          added++;
        }
      }
      if (Atomics.load(state, 3) !== 0) return null;
      await pause(0);
    }
    for (let i = 0; i < sums.length; i++) centroids[i] = sums[i]! / Math.max(counts[Math.floor(i / dimensions)]!, 1);
    tailScale = added > 0 ? tailSum / added : 0;
    Atomics.store(state, 2, 2);
  }
  while (Atomics.load(state, 2) !== 2) {
    if (Atomics.load(state, 3) !== 0) return null;
    await pause(2);
  }
  for (;;) {
    if (Atomics.load(state, 3) !== 0) return null;
    const from = Atomics.add(state, 1, job.chunk);
    if (from >= n) return { tailScale };
    const to = Math.min(n, from + job.chunk);
    let i = from;
    for (let after = vrows[from]! - 1; ;) {
      // The batch's rows are at most `batch` positions from i: their lists must be assigned.
      while (Atomics.load(state, 0) < Math.min(to, i + batch)) {
        if (Atomics.load(state, 3) !== 0) return null;
        await pause(2);
      }
      const rows = query(
        `SELECT rowid, vector FROM record_vectors NOT INDEXED WHERE rowid > ? AND rowid <= ? AND vector_settings_id = ? ORDER BY rowid LIMIT ${batch}`,
        [after, vrows[to - 1]!, job.settingsId],
      );
      for (const [vrow, blob] of rows) {
        while (i < to && vrows[i]! < (vrow as number)) i++;
        if (i >= to || vrows[i] !== vrow) continue; // not in the snapshot (written since: the index's tail)
        scales[i] = residual(floats(blob as Uint8Array), centroids, assigned[i]! * dimensions, dimensions, codes, i * words);
        i++;
      }
      if (rows.length < batch) break;
      after = rows[rows.length - 1]![0] as number;
      if (Atomics.load(state, 3) !== 0) return null;
      await pause(0);
    }
  }
}

export interface IvfBuildOptions {
  /** Lists (centroids); default √n, between 16 and 4,096. */
  lists?: number;
  /** Codes of the training sample per list (default 32). */
  samplePerList?: number;
  /** k-means rounds on the sample (default 6). */
  iterations?: number;
  /** Awaited between slices of ~8 ms (default: setImmediate), so that requests run meanwhile. */
  pause?: () => Promise<void>;
  /** Work between two pauses (ms, default 8). */
  sliceMs?: number;
  /** Asked between slices: true abandons the build. */
  cancelled?: () => boolean;
  /** Called once the centroids are trained: the training sample's positions (in the snapshot) and their lists, and the number of lists. */
  trained?: (positions: Uint32Array, lists: Uint16Array, count: number) => void;
  /** Where the assignment writes each snapshot position's list (e.g. shared memory another thread reads); default its own. */
  assigned?: Uint16Array;
  /** Called as the assignment goes: the first `count` positions of `assigned` are written. */
  progress?: (count: number) => void;
}

/**
 * The table of asymmetric scores for `values` (the query is not quantised): for each code byte, the
 * 256 sums Σ q_i·(bit_i ? 1 : -1) of its 8 dimensions. A code's score, an estimate of (x̂ - μ)·q up to
 * scale, is then one lookup per byte (`asymmetricScores`). Self-contained (`farScan`'s threads evaluate its source).
 */
export function asymmetricTable(values: ArrayLike<number>, words: number): Float32Array {
  const bytes = words * 4;
  const table = new Float32Array(bytes * 256);
  for (let b = 0; b < bytes; b++) {
    for (let v = 0; v < 256; v++) {
      let sum = 0;
      for (let j = 0; j < 8; j++) {
        const q = values[b * 8 + j] ?? 0;
        sum += (v >> j) & 1 ? q : -q;
      }
      table[b * 256 + v] = sum;
    }
  }
  return table;
}

/** The asymmetric scores (`asymmetricTable`) of the `count` codes from index `from`, negated when `negate` (as costs). Self-contained (as `asymmetricTable`). */
export function asymmetricScores(
  table: Float32Array,
  codes: Uint32Array,
  words: number,
  from: number,
  count: number,
  negate = false,
): Float32Array {
  const scores = new Float32Array(count);
  const sign = negate ? -1 : 1;
  for (let i = 0, o = from * words; i < count; i++, o += words) {
    let sum = 0;
    for (let w = 0, base = 0; w < words; w++, base += 1024) {
      const x = codes[o + w]!;
      sum +=
        table[base | (x & 255)]! +
        table[(base + 256) | ((x >>> 8) & 255)]! +
        table[(base + 512) | ((x >>> 16) & 255)]! +
        table[(base + 768) | (x >>> 24)]!;
    }
    scores[i] = sign * sum;
  }
  return scores;
}

/** Typed arrays in shared memory (a read thread scans them without a copy), or ordinary ones where there is none. */
function shared<T extends Uint8Array | Uint32Array | Float32Array | Float64Array>(
  type: { new (buffer: ArrayBufferLike): T; new (length: number): T; BYTES_PER_ELEMENT: number },
  length: number,
): T {
  return typeof SharedArrayBuffer === "function" ? new type(new SharedArrayBuffer(length * type.BYTES_PER_ELEMENT)) : new type(length);
}

/** An index's far side as `farScan` reads it (`BinaryIvf.farScanData`). */
export interface FarScanData {
  words: number;
  dimensions: number;
  /** List c holds positions offsets[c] to offsets[c + 1] - 1. */
  offsets: Uint32Array;
  centroids: Float32Array;
  codes: Uint32Array;
  scales: Float32Array;
  vrowAt: Float64Array;
  stale: Uint8Array;
}

/**
 * The positions of the `count` least `costs` among the first `n` (ties by `vrows`), in that order: a
 * histogram of 4,096 bins for the cut, then a sort of what is at or below it. Self-contained (the read
 * threads evaluate its source for `farScan`, sqlite-read-pool.ts).
 */
export function leastCosts(vrows: Float64Array, costs: Float64Array, n: number, count: number): number[] {
  const picked: number[] = [];
  if (n <= count) for (let i = 0; i < n; i++) picked.push(i);
  else {
    let lo = Infinity,
      hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const x = costs[i]!;
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    const bins = 4096;
    const scale = hi > lo ? (bins - 1) / (hi - lo) : 0;
    const histogram = new Uint32Array(bins);
    for (let i = 0; i < n; i++) histogram[Math.floor((costs[i]! - lo) * scale)]!++;
    let cut = 0;
    for (let sum = histogram[0]!; cut < bins - 1 && sum < count;) sum += histogram[++cut]!;
    for (let i = 0; i < n; i++) if (Math.floor((costs[i]! - lo) * scale) <= cut) picked.push(i);
  }
  picked.sort((a, b) => costs[a]! - costs[b]! || vrows[a]! - vrows[b]!);
  return picked.slice(0, count);
}

/** What `farScan` calls (passed in: the read threads evaluate its source, where module names do not resolve). */
export interface FarScanHelpers {
  planes: typeof queryPlanes;
  scorer: PlaneScorer;
  least: typeof leastCosts;
}

/** The module's own helpers, for `farScan` on the request thread. */
export const FAR_SCAN_HELPERS: FarScanHelpers = { planes: queryPlanes, scorer: planeScorer(PLANES_MODULE), least: leastCosts };

/**
 * least_similar's candidates from an index's lists: the live codes of the lists whose centroid is least
 * similar to the query (`values`), until at least `target` codes were scored, each with its estimated
 * similarity (`FarSide`: the query's product with the list's centroid + the scale times the asymmetric
 * score of the code around it, the query quantised to bit planes: bit-planes.ts; lower is farther); the `count` of least estimate (ties by rowid), in
 * that order, and the number of codes scored. Self-contained (no closure, no import; `helpers` are
 * `FAR_SCAN_HELPERS`): the read threads evaluate its source (sqlite-read-pool.ts) and the request
 * thread calls it when there are none.
 */
export function farScan(
  data: FarScanData,
  values: ArrayLike<number>,
  target: number,
  count: number,
  helpers: FarScanHelpers,
): { vrows: Float64Array; costs: Float64Array; scanned: number } {
  const { words, dimensions, offsets, centroids, codes, scales, vrowAt, stale } = data;
  const lists = offsets.length - 1;
  const toCentroid = new Float64Array(lists);
  for (let c = 0, o = 0; c < lists; c++, o += dimensions) {
    let s = 0;
    for (let d = 0; d < dimensions; d++) s += centroids[o + d]! * values[d]!;
    toCentroid[c] = s;
  }
  const order = Uint32Array.from({ length: lists }, (_, c) => c).sort((a, b) => toCentroid[a]! - toCentroid[b]! || a - b);
  let scanned = 0;
  let lastList = 0;
  while (lastList < lists && scanned < target) {
    const c = order[lastList++]!;
    scanned += offsets[c + 1]! - offsets[c]!;
  }
  // The lists' codes scored at once (bit-planes.ts: the query quantised to 4 bits, popcounts: ~2.7 against ~12 ms
  // of 48 table lookups per code for 100K codes at 1M vectors, the same recall).
  const ranges = new Uint32Array(lastList * 2);
  for (let k = 0; k < lastList; k++) {
    const c = order[k]!;
    ranges[2 * k] = offsets[c]!;
    ranges[2 * k + 1] = offsets[c + 1]! - offsets[c]!;
  }
  const q = helpers.planes(values, words, dimensions);
  const packed = helpers.scorer(q, codes, words, ranges, lastList);
  // A code's score from its packed count P·65536 + U: 2·(lo·P + Δ·U) - total (bit-planes.ts).
  const perOne = 2 * q.lo,
    perLevel = 2 * q.delta;
  const vrows = new Float64Array(scanned);
  const costs = new Float64Array(scanned);
  let n = 0;
  for (let k = 0, at = 0; k < lastList; k++) {
    const base = toCentroid[order[k]!]!;
    const from = ranges[2 * k]!;
    const size = ranges[2 * k + 1]!;
    for (let i = 0; i < size; i++, at++) {
      if (stale[from + i] !== 0) continue;
      vrows[n] = vrowAt[from + i]!;
      const v = packed[at]!;
      costs[n++] = base + scales[from + i]! * (perOne * (v >>> 16) + perLevel * (v & 0xffff) - q.total);
    }
  }
  const picked = helpers.least(vrows, costs, n, count);
  return { vrows: Float64Array.from(picked, (i) => vrows[i]!), costs: Float64Array.from(picked, (i) => costs[i]!), scanned };
}
