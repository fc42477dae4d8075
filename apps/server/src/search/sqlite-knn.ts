import { CompiledQuery, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { encodeVector } from "../records/read.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { HammingStore, hammingTable } from "./hamming.js";
import {
  asymmetricScores,
  asymmetricTable,
  BinaryIvf,
  FAR_ASSIGNED,
  FAR_CANCEL,
  FAR_SCAN_HELPERS,
  farScan,
  type FarSideJob,
  FarSideBuilder,
  type IvfBuildOptions,
  leastCosts,
} from "./knn-ivf.js";
import type { SearchQuery, SearchResult } from "./search-port.js";
import { filterSql, type Param, SqliteQueries } from "./sqlite-sql.js";
import { type ReadStatement, readStatementSql } from "./read-statements.js";
import { type ReadPool, readPoolFor } from "./sqlite-read-pool.js";
import { textIndexFor } from "./text-index.js";

export interface KnnOptions {
  /** Settings with at most this many vectors are searched exactly (default 20,000: ~10 ms of CPU there). */
  exactBelow?: number;
  /** Candidates taken from the binary codes per result wanted, then rescored exactly (default 10). */
  oversample?: number;
  /** Vectors a setting may have for `follow` to load its codes from scratch (default 50,000: ~0.2 s of CPU). */
  followLoadMax?: number;
  /** Settings with more live vectors get an inverted file over their codes (knn-ivf.ts; default 50,000). */
  indexAbove?: number;
  /** Share of the indexed codes a most_similar search scores, in the lists nearest to the query (default 0.03). */
  probeFraction?: number;
  /** Candidates per result wanted taken from the index's lists (most_similar; default 2, against `oversample` from a scan of every code). */
  indexOversample?: number;
  /** Share of the indexed codes a least_similar search scores, in the lists whose centroid is least similar to the query (default 0.1). */
  farProbeFraction?: number;
  /** Candidates per result wanted taken from the index's lists for least_similar (default 4). */
  farOversample?: number;
  /** The index is built once the setting's vectors have not changed for this long (ms, default 1,000). */
  settleMs?: number;
  /**
   * Whether writes are held back now (default: a writer waits for the store's text indexer, TextIndex.holdingWriters):
   * an import is in progress, however long its vectors have not changed, and the build waits for it.
   */
  writesHeld?: () => boolean;
  /** Passed to the index's build (tests). */
  indexBuild?: IvfBuildOptions;
  /** Builds a missing or outgrown index before a search instead of in the background (tests). */
  indexWhenSearched?: boolean;
  /** false: the candidates' rescoring and filters on the request thread's connection even when the store has read threads (tests compare). */
  offThread?: boolean;
}

const LOAD_BATCH = 50_000;
/** Vectors averaged for the centre that codes are taken around. */
const MEAN_SAMPLE = 5_000;
const PRUNE_LOG_ABOVE = 50_000;
const READ_MARK = "record_vectors_read";
/** The index is rebuilt when the rows added, changed or removed since its build exceed this share of it (and REBUILD_MIN). */
const REBUILD_FRACTION = 0.05;
const REBUILD_MIN = 1_000;
/** A search that needs more than this share of the codes (selective filters) scans them all instead of the index's lists. */
const PROBE_MAX = 0.25;
/** Vectors read at a time (then a pause) for the far side's estimator of an index (knn-ivf.ts, `FarSide`): ~10 ms. */
const FAR_BATCH = 2_000;
/** Positions a far side's thread claims at a time (`farSidePart`): a few hundred ms of work. */
const FAR_CHUNK = 32_768;
const buildError = backgroundErrorLogger("building a similarity index");

/**
 * The binary codes of one vector setting, in memory, by `record_vectors` rowid (ascending): the sign
 * of each dimension (32 per word) of the normalised vector minus the setting's mean normalised
 * vector. Centring matters: embeddings share a common direction, and uncentred sign codes of the
 * far side of the space (least_similar) are nearly all alike (recall@50 0.5 instead of 1 on the
 * bench's vectors at 100K). Ranking by cosine = by x̂·q = μ·q + (x̂ - μ)·q, so centring the stored
 * vectors (not the query) keeps the order the codes approximate. Rebuilt from `record_vectors` when first needed; then kept up
 * to date before each search from rows above the highest rowid read and the change log of migration
 * 0012 (updates, deletes, inserts reusing a rowid). 48 bytes per 384-dimension vector.
 */
class Codes {
  size = 0;
  alive = 0;
  vrows = new Float64Array(0);
  codes: Uint32Array = new Uint32Array(0);
  /** Where `codes` lives when the distances can use the CPU's popcount (search/hamming.ts); else null. */
  store: HammingStore | null = null;
  dead = new Uint8Array(0);
  /** Highest record_vectors rowid (any setting) whose row of this setting is in `codes`. */
  hwm = 0;
  /** Last change log id applied; -1: never loaded. */
  applied = -1;
  /** Serialises the syncs of this setting (the first load takes seconds at 1M vectors). */
  syncing: Promise<void> = Promise.resolve();

  /** The centre (float32 blob for vec_sub), set on every full load; `loadedAt`: live codes then. */
  mean = new Float32Array(0);
  meanBlob = Buffer.alloc(0);
  loadedAt = 0;

  /** The inverted file over the codes (knn-ivf.ts), once built; rows added or changed since are its tail. */
  ivf: BinaryIvf | null = null;
  /** While an index is built from a snapshot: the snapshot's highest rowid and the rows at or below it changed since. */
  building: { maxVrow: number; touched: Set<number> } | null = null;
  /** Moved by every reset: an index built from an older snapshot is dropped. */
  generation = 0;
  /** Date.now() of the last change to the codes (the index is built once they settle). */
  lastChange = 0;
  buildTimer: ReturnType<typeof setTimeout> | null = null;
  /** Codes scored by the searches (diagnostics, tests). */
  scored = 0;

  constructor(
    readonly settingsId: string,
    readonly dimensions: number,
    readonly words: number,
    readonly sqlQuantize: boolean,
  ) {}

  setMean(vectors: Uint8Array[]): void {
    const mean = new Float64Array(this.dimensions);
    for (const blob of vectors) {
      const v = floatsOf(blob);
      let norm = 0;
      for (let d = 0; d < v.length; d++) norm += v[d]! * v[d]!;
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < this.dimensions && d < v.length; d++) mean[d]! += v[d]! / norm;
    }
    this.mean = Float32Array.from(mean, (x) => x / Math.max(vectors.length, 1));
    this.meanBlob = Buffer.from(this.mean.buffer);
  }

  reset(capacity: number): void {
    this.dropIndex();
    this.size = 0;
    this.alive = 0;
    this.hwm = 0;
    this.vrows = new Float64Array(capacity);
    this.allocateCodes(capacity);
    this.dead = new Uint8Array(capacity);
  }

  /** New, zeroed code storage for `capacity` codes (the caller copies what it keeps). */
  private allocateCodes(capacity: number): void {
    let store: HammingStore | null = null;
    try {
      store = HammingStore.create(this.words, capacity);
    } catch {
      // No WebAssembly memory to be had (address space): the table's distances need none.
    }
    this.store = store;
    this.codes = store?.codes ?? new Uint32Array(capacity * this.words);
  }

  /** Bytes held: the codes (in the popcount store's memory, with its distance buffer), rowids and removal marks. */
  get memoryBytes(): number {
    return (this.store ? this.store.memoryBytes : this.codes.byteLength) + this.vrows.byteLength + this.dead.byteLength;
  }

  /** Forgets the index, and any index being built. */
  dropIndex(): void {
    this.ivf = null;
    this.building = null;
    this.generation++;
  }

  /** Notes a change of the row's code (or its removal) for the index and the one being built. */
  private changedRow(vrow: number): void {
    this.lastChange = Date.now();
    this.ivf?.touch(vrow);
    if (this.building && vrow <= this.building.maxVrow) this.building.touched.add(vrow);
  }

  /** Frees the arrays when nothing is left (the read position is kept). */
  release(): void {
    this.dropIndex();
    this.size = 0;
    this.vrows = new Float64Array(0);
    this.codes = new Uint32Array(0);
    this.store = null;
    this.dead = new Uint8Array(0);
  }

  private grow(min: number): void {
    const capacity = Math.max(min, Math.ceil(this.vrows.length * 1.5), 1024);
    const vrows = new Float64Array(capacity);
    vrows.set(this.vrows.subarray(0, this.size));
    this.vrows = vrows;
    const old = this.codes;
    this.allocateCodes(capacity);
    this.codes.set(old.subarray(0, this.size * this.words));
    const dead = new Uint8Array(capacity);
    dead.set(this.dead.subarray(0, this.size));
    this.dead = dead;
  }

  /** The code of a stored row: from sqlite-vec (`codeSql`, dimensions divisible by 8), else from the float32 blob. */
  codeOf(blob: Uint8Array): Uint32Array {
    const code = new Uint32Array(this.words);
    if (this.sqlQuantize) {
      new Uint8Array(code.buffer).set(blob.subarray(0, this.words * 4));
    } else {
      const v = floatsOf(blob);
      let norm = 0;
      for (let d = 0; d < v.length; d++) norm += v[d]! * v[d]!;
      norm = Math.sqrt(norm) || 1;
      for (let i = 0; i < v.length && i < this.words * 32; i++) if (v[i]! / norm - (this.mean[i] ?? 0) > 0) code[i >>> 5]! |= 1 << (i & 31);
    }
    return code;
  }

  /** SQL giving what `codeOf` takes for column `vector`, and its parameter (the centre). */
  get codeSql(): { sql: string; params: Param[] } {
    return this.sqlQuantize
      ? { sql: "vec_quantize_binary(vec_sub(vec_normalize(vector), ?))", params: [this.meanBlob] }
      : { sql: "vector", params: [] };
  }

  /** Same bit layout as vec_quantize_binary: bit i (LSB first) of byte i/8 is set when element i is positive. */
  quantize(values: number[]): Uint32Array {
    const code = new Uint32Array(this.words);
    for (let i = 0; i < values.length && i < this.words * 32; i++) if (values[i]! > 0) code[i >>> 5]! |= 1 << (i & 31);
    return code;
  }

  private find(vrow: number): number {
    let lo = 0,
      hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.vrows[mid]!;
      if (v === vrow) return mid;
      if (v < vrow) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Adds or replaces the code of a row (rows usually arrive in ascending rowid order: appended). */
  set(vrow: number, code: Uint32Array): void {
    this.changedRow(vrow);
    let at = this.size > 0 && this.vrows[this.size - 1]! >= vrow ? this.find(vrow) : -1;
    if (at < 0) {
      if (this.size === this.vrows.length) this.grow(this.size + 1);
      at = this.size++;
      this.alive++;
      if (at > 0 && this.vrows[at - 1]! > vrow) {
        // A reused rowid below the others (rare): insert in order.
        let pos = at;
        while (pos > 0 && this.vrows[pos - 1]! > vrow) pos--;
        this.vrows.copyWithin(pos + 1, pos, at);
        this.codes.copyWithin((pos + 1) * this.words, pos * this.words, at * this.words);
        this.dead.copyWithin(pos + 1, pos, at);
        at = pos;
      }
      this.vrows[at] = vrow;
      this.dead[at] = 0;
    } else if (this.dead[at]) {
      this.dead[at] = 0;
      this.alive++;
    }
    this.codes.set(code, at * this.words);
  }

  remove(vrow: number): void {
    const at = this.find(vrow);
    if (at >= 0) this.changedRow(vrow);
    if (at >= 0 && !this.dead[at]) {
      this.dead[at] = 1;
      this.alive--;
    }
  }

  /** Drops the removed rows once they are a quarter of the arrays. */
  compact(): void {
    if (this.size - this.alive <= this.size / 4) return;
    let out = 0;
    for (let i = 0; i < this.size; i++) {
      if (this.dead[i]) continue;
      this.vrows[out] = this.vrows[i]!;
      this.codes.copyWithin(out * this.words, i * this.words, (i + 1) * this.words);
      this.dead[out] = 0;
      out++;
    }
    this.size = out;
  }

  /**
   * The rowids of the `count` live codes nearest to `probe` in Hamming distance (ties by rowid):
   * one pass computing the distances, a histogram of them (they are small integers) for the cut-off
   * distance, a pass collecting. Linear, no sort.
   */
  nearest(probe: Uint32Array, count: number, distances = this.hammingTo(probe)): number[] {
    const { size, dead, vrows } = this;
    const bits = this.words * 32;
    const histogram = new Uint32Array(bits + 1);
    for (let i = 0; i < size; i++) if (dead[i] === 0) histogram[distances[i]!]!++;
    let cut = 0;
    for (let sum = 0; cut <= bits; cut++) {
      sum += histogram[cut]!;
      if (sum >= count) break;
    }
    const below = count - (cut > 0 ? sumTo(histogram, cut - 1) : 0);
    const out: number[] = [];
    let ties = 0;
    for (let i = 0; i < size; i++) {
      const d = distances[i]!;
      if (d > cut || dead[i] !== 0) continue;
      if (d < cut || ties++ < below) out.push(vrows[i]!);
    }
    return out;
  }

  /**
   * Asymmetric scores (the query is not quantised): Σ q_i·(bit_i ? 1 : -1) per code, an estimate of
   * (x̂ - μ)·q up to scale, through a table of the 256 partial sums of each code byte (48 lookups
   * per 384-bit code). Finer than the Hamming distance, ~2x its cost.
   */
  scoresFor(values: number[]): Float32Array {
    return asymmetricScores(asymmetricTable(values, this.words), this.codes, this.words, 0, this.size);
  }

  /** The index of the first row with a rowid above `vrow` (the rows are in rowid order). */
  firstAbove(vrow: number): number {
    let lo = 0,
      hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.vrows[mid]! <= vrow) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Rows the index does not hold as they are now: added since its build, or changed (re-read from these codes). */
  get indexTail(): number {
    if (!this.ivf) return this.alive;
    let added = 0;
    for (let i = this.firstAbove(this.ivf.maxVrow); i < this.size; i++) if (this.dead[i] === 0) added++;
    return added + this.ivf.changed.size;
  }

  /**
   * The rowids of the `count` rows nearest to the query by Hamming distance among those the index's
   * lists nearest to the query hold (at least `fraction` of its codes, and 4 per candidate wanted) and
   * its tail (rows added or changed since its build, from these codes). Ties by rowid.
   */
  indexedCandidates(values: number[], count: number, fraction: number): number[] {
    const ivf = this.ivf!;
    const { words } = this;
    const probe = this.quantize(values);
    const cost = (codes: Uint32Array, store: HammingStore | null, from: number, n: number): ArrayLike<number> =>
      store ? store.distancesFrom(probe, from, n) : hammingTable(codes.subarray(from * words), words, probe, n);
    const found = candidateBuffer.clear();
    const emit = (vrow: number, c: number) => found.push(vrow, c);
    this.scored += ivf.scan(ivf.listOrder(values), Math.max(Math.ceil(fraction * ivf.size), count * 4), cost, emit);
    const start = this.firstAbove(ivf.maxVrow);
    if (start < this.size) {
      const tail = cost(this.codes, this.store, start, this.size - start);
      this.scored += this.size - start;
      for (let i = start; i < this.size; i++) if (this.dead[i] === 0) emit(this.vrows[i]!, tail[i - start]!);
    }
    for (const vrow of ivf.changed) {
      const at = this.find(vrow);
      if (at >= 0 && this.dead[at] === 0) emit(vrow, cost(this.codes, this.store, at, 1)[0]!);
    }
    return found.smallest(count);
  }

  /**
   * least_similar through the index: the rowids of the `count` rows of least estimated similarity
   * (knn-ivf.ts, `FarSide`) among `listed` (the best of the lists whose centroid is least similar to
   * the query: `farScan`, with the index it ran on) and the index's tail (estimated from these codes).
   * Ties by rowid.
   */
  farCandidates(
    values: number[],
    count: number,
    listed: { ivf: BinaryIvf; vrows: Float64Array; costs: Float64Array; scanned: number },
  ): number[] {
    const { ivf } = listed;
    const far = ivf.farSide!;
    const found = candidateBuffer.clear();
    for (let i = 0; i < listed.vrows.length; i++) found.push(listed.vrows[i]!, listed.costs[i]!);
    this.scored += listed.scanned;
    // The tail's table and product with the centre only when there is a tail (~0.3 ms of the request thread's per call).
    let tail: { table: Float32Array; toMean: number } | null = null;
    const estimate = (from: number, n: number) => {
      if (!tail) {
        let toMean = 0;
        for (let d = 0; d < this.dimensions; d++) toMean += (values[d] ?? 0) * (this.mean[d] ?? 0);
        tail = { table: asymmetricTable(values, this.words), toMean };
      }
      const { table, toMean } = tail;
      const scores = asymmetricScores(table, this.codes, this.words, from, n);
      for (let i = 0; i < n; i++) if (this.dead[from + i] === 0) found.push(this.vrows[from + i]!, toMean + far.tailScale * scores[i]!);
      this.scored += n;
    };
    const start = this.firstAbove(ivf.maxVrow);
    if (start < this.size) estimate(start, this.size - start);
    for (const vrow of ivf.changed) {
      const at = this.find(vrow);
      if (at >= 0) estimate(at, 1);
    }
    return found.smallest(count);
  }

  /** The rowids of the `count` live codes with the highest scores (ties by rowid): a histogram of 4,096 bins for the cut, then a sort of the last bin's few. */
  best(scores: Float32Array, count: number): number[] {
    const { size, dead, vrows } = this;
    let lo = Infinity,
      hi = -Infinity;
    for (let i = 0; i < size; i++)
      if (dead[i] === 0) {
        const x = scores[i]!;
        if (x < lo) lo = x;
        if (x > hi) hi = x;
      }
    if (lo > hi) return [];
    const bins = 4096;
    const scale = hi > lo ? (bins - 1) / (hi - lo) : 0;
    const histogram = new Uint32Array(bins);
    for (let i = 0; i < size; i++) if (dead[i] === 0) histogram[Math.floor((scores[i]! - lo) * scale)]!++;
    let cut = bins - 1;
    for (let sum = histogram[cut]!; cut > 0 && sum < count;) sum += histogram[--cut]!;
    const picked: number[] = [];
    for (let i = 0; i < size; i++) if (dead[i] === 0 && Math.floor((scores[i]! - lo) * scale) >= cut) picked.push(i);
    picked.sort((a, b) => scores[b]! - scores[a]! || a - b);
    return picked.slice(0, count).map((i) => vrows[i]!);
  }

  /**
   * Distances of every code to `probe`. With the popcount store, a view of its memory that the next
   * call overwrites: use it before any await (another query's sync may change the codes meanwhile).
   */
  hammingTo(probe: Uint32Array): Uint16Array {
    return this.store ? this.store.distances(probe, this.size) : hammingTable(this.codes, this.words, probe, this.size);
  }
}

function floatsOf(blob: Uint8Array): Float32Array {
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

/** The floats of a blob, without a copy when they are aligned (read before the blob is reused). */
function floatView(blob: Uint8Array): Float32Array {
  return blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength >> 2) : floatsOf(blob);
}

/**
 * The candidates a search collects from the codes (rowid, cost) in typed arrays kept between searches
 * (a least_similar search at 1M collects ~100K: as JavaScript arrays, ~3 ms of pushes and garbage per
 * call). Filled and read synchronously by one search at a time (`clear` ... `smallest`, no await between).
 */
export class CandidateBuffer {
  size = 0;
  vrows = new Float64Array(1024);
  costs = new Float64Array(1024);

  clear(): this {
    this.size = 0;
    return this;
  }

  push(vrow: number, cost: number): void {
    if (this.size === this.vrows.length) {
      const vrows = new Float64Array(this.size * 2);
      vrows.set(this.vrows);
      this.vrows = vrows;
      const costs = new Float64Array(this.size * 2);
      costs.set(this.costs);
      this.costs = costs;
    }
    this.vrows[this.size] = vrow;
    this.costs[this.size++] = cost;
  }

  /** The `count` rowids of least cost (ties by rowid; knn-ivf.ts, `leastCosts`). */
  smallest(count: number): number[] {
    return leastCosts(this.vrows, this.costs, this.size, count).map((i) => this.vrows[i]!);
  }
}

const candidateBuffer = new CandidateBuffer();

function sumTo(histogram: Uint32Array, last: number): number {
  let s = 0;
  for (let i = 0; i <= last; i++) s += histogram[i]!;
  return s;
}

/**
 * Similarity search of the SQLite adapter. Up to `exactBelow` vectors in the setting: exact (the k
 * nearest by `vec_distance_cosine` over `record_vectors`, then the filters). Above: approximate, as
 * the pgvector IVFFlat index of the PostgreSQL adapter is: candidates from binary codes kept in memory
 * (`Codes`; Hamming distance, or asymmetric scores for least_similar), `oversample` times more than
 * wanted, rescored with the exact cosine distance and filtered in SQL; more candidates while the
 * filters reject too many. Not built on first use and no vec0 table: the codes are read from
 * `record_vectors` (~5 s of CPU per 1M vectors, in batches) and kept in step (see `sync`).
 */
export class SqliteKnn extends SqliteQueries {
  private readonly settings = new Map<string, Codes>();
  /** Settings whose codes a `follow` is bringing up to date (a write meanwhile needs no second one). */
  private readonly following = new Set<string>();
  /** Settings found over `followLoadMax` vectors while not loaded: `follow` leaves them until a search or the warm-up loads them. */
  private readonly tooLargeToFollow = new Set<string>();
  /** Syncs made by `follow` (diagnostics, tests). */
  followed = 0;
  /** Indexes built (diagnostics, tests). */
  indexesBuilt = 0;
  /** Far sides computed on the store's read threads (diagnostics, tests). */
  farSidesOnThreads = 0;
  /** Builds put off because writes were held back (`writesHeld`; diagnostics, tests). */
  buildsPutOff = 0;
  /** least_similar's list scans done on the store's read threads (tests, diagnostics). */
  scannedOffThread = 0;
  /** Reads of candidates done on the store's read threads (tests, diagnostics). */
  readOffThread = 0;
  private readonly exactBelow: number;
  private readonly oversample: number;
  private readonly followLoadMax: number;
  private readonly indexAbove: number;
  private readonly probeFraction: number;
  private readonly indexOversample: number;
  private readonly farProbeFraction: number;
  private readonly farOversample: number;
  private readonly settleMs: number;
  private readonly writesHeld: () => boolean;

  constructor(
    db: Kysely<DB>,
    private readonly options: KnnOptions = {},
  ) {
    super(db);
    this.exactBelow = options.exactBelow ?? 20_000;
    this.oversample = options.oversample ?? 10;
    this.followLoadMax = options.followLoadMax ?? 50_000;
    this.indexAbove = options.indexAbove ?? 50_000;
    this.probeFraction = options.probeFraction ?? 0.03;
    this.indexOversample = options.indexOversample ?? 2;
    this.farProbeFraction = options.farProbeFraction ?? 0.1;
    this.farOversample = options.farOversample ?? 4;
    this.settleMs = options.settleMs ?? 1_000;
    this.writesHeld = options.writesHeld ?? (() => textIndexFor(db)?.holdingWriters ?? false);
  }

  /** Memory held by the codes of every loaded vector setting (bytes), for measurements. */
  get memoryBytes(): number {
    let total = 0;
    for (const c of this.settings.values()) total += c.memoryBytes;
    return total;
  }

  /** Codes scored by the similarity searches so far (tests, diagnostics). */
  get codesScored(): number {
    let total = 0;
    for (const c of this.settings.values()) total += c.scored;
    return total;
  }

  /** Memory held by the inverted files over the codes (bytes), for measurements; above 0 once most_similar searches an index. */
  get indexBytes(): number {
    let total = 0;
    for (const c of this.settings.values()) total += c.ivf?.memoryBytes ?? 0;
    return total;
  }

  /** Memory held by the indexes' far side estimators (bytes); above 0 once least_similar searches an index too. */
  get farSideBytes(): number {
    let total = 0;
    for (const c of this.settings.values()) total += c.ivf?.farSideBytes ?? 0;
    return total;
  }

  /**
   * Vector settings whose index is being built, waits for its build, or needs one (a setting without an index, or
   * whose tail outgrew it): 0 once every large setting is searched through an index over its rows as they are.
   */
  get indexesPending(): number {
    let pending = 0;
    for (const c of this.settings.values()) if (c.building !== null || c.buildTimer !== null || this.needsIndex(c)) pending++;
    return pending;
  }

  /** The setting's index as searched now (tests, diagnostics); null before its first build. */
  indexOf(settingsId: string): BinaryIvf | null {
    return this.settings.get(settingsId)?.ivf ?? null;
  }

  /** Whether the setting's codes have an index, and how many rows it does not hold as they are (tests, diagnostics). */
  indexState(settingsId: string): { indexed: number; tail: number } | null {
    const c = this.settings.get(settingsId);
    return c?.ivf ? { indexed: c.ivf.size, tail: c.indexTail } : null;
  }

  /**
   * Builds the index of a setting's codes now, whatever their size or how recently they changed
   * (tests; the server builds them in the background, `scheduleIndex`). False when the setting is unknown.
   */
  async buildIndex(settingsId: string): Promise<boolean> {
    const c = await this.codes(settingsId);
    if (!c) return false;
    await this.build(c);
    return c.ivf !== null;
  }

  /**
   * Starts building a setting's index once its codes have settled (no change for `settleMs`), when it
   * has more than `indexAbove` live vectors and no index, or an index whose tail (rows added, changed or
   * removed since) outgrew REBUILD_FRACTION of it. In the background, in slices (knn-ivf.ts): ~5 s of
   * one core at 1M vectors.
   */
  private scheduleIndex(c: Codes, from = c.lastChange): void {
    if (c.buildTimer || !this.needsIndex(c)) return;
    const wait = Math.max(0, from + this.settleMs - Date.now());
    c.buildTimer = setTimeout(() => {
      c.buildTimer = null;
      if (Date.now() - c.lastChange < this.settleMs) this.scheduleIndex(c);
      else if (this.writesHeld()) {
        // A writer waits for the text indexer (an import mid-way): its next batches would outdate the build at once.
        // Before, such pauses of a 1M import started builds mid-way (~22 s of a read thread and ~10 s of this one).
        this.buildsPutOff++;
        this.scheduleIndex(c, Date.now());
      } else if (this.needsIndex(c)) this.build(c).catch(buildError);
    }, wait);
    c.buildTimer.unref?.();
  }

  private needsIndex(c: Codes): boolean {
    if (c.building || c.alive <= this.indexAbove) return false;
    return !c.ivf || c.indexTail > Math.max(REBUILD_MIN, c.ivf.size * REBUILD_FRACTION);
  }

  /** Builds the index from a snapshot of the live codes; rows changed meanwhile are marked in it before it is used. */
  private async build(c: Codes): Promise<void> {
    if (c.building || c.alive === 0) return;
    const { words } = c;
    const pool = typeof SharedArrayBuffer === "function" ? readPoolFor(this.db) : null;
    const vrows = pool ? new Float64Array(new SharedArrayBuffer(c.alive * 8)) : new Float64Array(c.alive);
    const codes = new Uint32Array(c.alive * words);
    let m = 0;
    for (let i = 0; i < c.size; i++) {
      if (c.dead[i] !== 0) continue;
      vrows[m] = c.vrows[i]!;
      codes.set(c.codes.subarray(i * words, (i + 1) * words), m * words);
      m++;
    }
    const generation = c.generation;
    const building = { maxVrow: vrows[m - 1]!, touched: new Set<number>() };
    c.building = building;
    // With the store's read threads, least_similar's estimator is computed there, beside the assignment of the codes.
    const far = pool && m === c.alive ? this.farSideOnThreads(pool, c, vrows) : null;
    try {
      const ivf = await BinaryIvf.build(
        { codes, vrows: vrows.subarray(0, m), size: m, words },
        { ...this.options.indexBuild, cancelled: () => c.generation !== generation, ...far?.hooks },
      );
      if (!ivf || c.generation !== generation) return;
      // A first index serves most_similar at once (least_similar scans every code until its far side
      // is in); a rebuild waits for its far side, the index before serving both meanwhile.
      const first = c.ivf === null;
      if (first) this.publish(c, ivf, building);
      // least_similar's estimator: the setting's vectors read again (one pass in rowid order, in
      // slices); rows changed meanwhile are noted in `building` (and in the published index).
      const threaded = far ? await far.result(ivf, () => c.generation !== generation) : false;
      if (c.generation !== generation) return;
      if (!threaded && (pool?.isClosed || !(await this.buildFarSide(c, ivf, generation)))) return;
      if (!first) this.publish(c, ivf, building);
    } finally {
      far?.cancel();
      if (c.building === building) c.building = null;
    }
    // Rows written during the build (a first index is searched before its far side is in) may call for the next one.
    if (c.generation === generation) this.scheduleIndex(c);
  }

  /**
   * least_similar's estimator of an index being built from the snapshot `vrows` (shared memory), on
   * the store's read threads (knn-ivf.ts, `farSidePart`): started by the build's hooks once its
   * centroids are trained, on all threads but one (a core left to the request thread's assignment,
   * which most_similar waits for), the last joining once the index is built (each thread takes chunks
   * of the snapshot as the assignment reaches them); then `result` reorders it into the index's
   * positions and sets it (false when a thread failed, the build was abandoned or the pool closed:
   * the caller reads the vectors itself, or gives up).
   */
  private farSideOnThreads(pool: ReadPool, c: Codes, vrows: Float64Array) {
    const n = vrows.length;
    const sharedOf = <T>(make: (buffer: SharedArrayBuffer) => T, bytes: number) => make(new SharedArrayBuffer(bytes));
    const state = sharedOf((b) => new Int32Array(b), 16);
    const assigned = sharedOf((b) => new Uint16Array(b), n * 2);
    const runs: Promise<{ tailScale: number | null } | null>[] = [];
    let job: FarSideJob | null = null;
    const cancel = () => Atomics.store(state, FAR_CANCEL, 1);
    const startParts = (count: number) => {
      for (let k = 0; k < count; k++) {
        const part = pool.farSide(job!);
        part.catch(cancel);
        runs.push(part);
      }
    };
    const hooks: Pick<IvfBuildOptions, "trained" | "assigned" | "progress"> = {
      assigned,
      progress: (count) => Atomics.store(state, FAR_ASSIGNED, count),
      trained: (samplePositions, sampleLists, lists) => {
        job = {
          settingsId: c.settingsId,
          dimensions: c.dimensions,
          words: c.words,
          lists,
          mean: c.mean,
          vrows,
          assigned,
          samplePositions,
          sampleLists,
          state,
          centroids: sharedOf((b) => new Float32Array(b), lists * c.dimensions * 4),
          codes: sharedOf((b) => new Uint32Array(b), n * c.words * 4),
          scales: sharedOf((b) => new Float32Array(b), n * 4),
          chunk: FAR_CHUNK,
        };
        startParts(Math.max(1, pool.size - 1));
      },
    };
    const result = async (ivf: BinaryIvf, abandoned: () => boolean): Promise<boolean> => {
      if (!job) return false;
      const started: FarSideJob = job;
      if (!pool.isClosed) startParts(pool.size - runs.length);
      const run = Promise.all(runs);
      // Tests look at the index while the threads work (their build's pause).
      const hook = this.options.indexBuild?.pause;
      let parts: ({ tailScale: number | null } | null)[] | null = null;
      let finished = false;
      const settled = run.then(
        (p) => (parts = p),
        () => null,
      );
      void settled.finally(() => (finished = true));
      const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 5));
      while (hook && !finished && !abandoned()) await Promise.race([settled, hook().then(tick)]);
      await settled;
      if (!parts || abandoned() || (parts as ({ tailScale: number | null } | null)[]).some((p) => p === null)) return false;
      const tailScale = (parts as { tailScale: number | null }[]).find((p) => p.tailScale !== null)?.tailScale ?? 0;
      ivf.farSide = FarSideBuilder.fromSnapshotOrder(ivf, { ...started, tailScale });
      this.farSidesOnThreads++;
      return true;
    };
    return { hooks, cancel, result };
  }

  /** Makes a built index the setting's, with the rows changed since its snapshot marked in it. */
  private publish(c: Codes, ivf: BinaryIvf, building: { touched: Set<number> }): void {
    for (const vrow of building.touched) ivf.touch(vrow);
    c.ivf = ivf;
    this.indexesBuilt++;
  }

  /**
   * Reads the vectors of an index for its far side's estimator (knn-ivf.ts, `FarSide`): a sample of
   * each list for its centroid, then every indexed vector in rowid order (the table's order: reading
   * them list by list, with the estimate computed by sqlite-vec's functions, took 3x longer: pages at
   * random), in batches of FAR_BATCH
   * with a pause between them. Rows changed meanwhile are marked in the index before it is used
   * (their codes are its tail). False when the codes were reset meanwhile.
   * The same estimator as the read threads' `farSidePart` (which `build` prefers), on the request
   * thread: kept for a store without read threads (TESSERA_TEXT_MATCH_THREADS=0, no SharedArrayBuffer)
   * and for a build whose threads failed. Both code with the same functions (`addToCentroid`,
   * `residualCode`); this one samples each list itself (`FarSideBuilder.sample`), as the threads'
   * pass cannot, since it starts before the lists are assigned (from the k-means' sample).
   */
  private async buildFarSide(c: Codes, ivf: BinaryIvf, generation: number): Promise<boolean> {
    const far = new FarSideBuilder(ivf, c.dimensions, c.mean);
    const pause = this.options.indexBuild?.pause ?? (() => new Promise<void>((resolve) => setImmediate(resolve)));
    const current = () => c.generation === generation;
    // In rowid order, as the table stores them (fewer pages read out of order).
    const sample = far.sample().sort((a, b) => a - b);
    for (let at = 0; at < sample.length; at += FAR_BATCH) {
      const rows = await this.all<{ vrow: number; vector: Buffer }>(
        "SELECT v.rowid AS vrow, v.vector AS vector FROM json_each(?) AS c CROSS JOIN record_vectors v ON v.rowid = c.value WHERE v.vector_settings_id = ?",
        [JSON.stringify(sample.slice(at, at + FAR_BATCH)), c.settingsId],
      );
      for (const r of rows) far.centroid(r.vrow, floatsOf(r.vector));
      await pause();
      if (!current()) return false;
    }
    for (let after = 0; ;) {
      const rows = await this.all<{ vrow: number; vector: Buffer }>(
        `SELECT rowid AS vrow, vector FROM record_vectors NOT INDEXED WHERE rowid > ? AND rowid <= ? AND vector_settings_id = ? ORDER BY rowid LIMIT ${FAR_BATCH}`,
        [after, ivf.maxVrow, c.settingsId],
      );
      for (const r of rows) far.add(r.vrow, floatView(r.vector));
      if (rows.length < FAR_BATCH) break;
      after = rows[rows.length - 1]!.vrow;
      await pause();
      if (!current()) return false;
    }
    ivf.farSide = far.finish();
    return current();
  }

  /** The up-to-date codes of a vector setting; null when the setting is unknown. */
  private async codes(settingsId: string): Promise<Codes | null> {
    let codes = this.settings.get(settingsId);
    if (!codes) {
      const row = (await this.all<{ dimensions: number }>("SELECT dimensions FROM vectors_settings WHERE id = ?", [settingsId]))[0];
      if (!row || !Number.isInteger(row.dimensions) || row.dimensions < 1) return null;
      codes =
        this.settings.get(settingsId) ?? new Codes(settingsId, row.dimensions, Math.ceil(row.dimensions / 32), row.dimensions % 8 === 0);
      this.settings.set(settingsId, codes);
    }
    const c = codes;
    const run = c.syncing.then(() => this.sync(settingsId, c));
    c.syncing = run.catch(() => {});
    await run;
    if (this.options.indexWhenSearched && this.needsIndex(c)) await this.build(c);
    else this.scheduleIndex(c);
    return c;
  }

  /**
   * Brings the codes up to date in one transaction: the logged rows (re-read as they are now), the
   * rows above the highest rowid read; then raises the read mark so that the insert trigger logs any
   * later insert at or below it. A first use (or a log pruned past this reader) loads everything.
   */
  private async sync(settingsId: string, c: Codes): Promise<void> {
    if (c.applied < 0) await this.load(settingsId, c);
    const reload = await this.db.transaction().execute(async (trx) => {
      const run = async <T>(text: string, params: Param[] = []) => (await trx.executeQuery<T>(CompiledQuery.raw(text, params))).rows;
      const changes = await run<{ id: number; vrow: number; mine: number | null; code: Buffer | null }>(
        `SELECT c.id, c.vrow, v.vector_settings_id = ? AS mine, CASE WHEN v.vector_settings_id = ? THEN ${c.codeSql.sql} END AS code FROM record_vectors_knn_changes c LEFT JOIN record_vectors v ON v.rowid = c.vrow WHERE c.id > ? ORDER BY c.id`,
        [settingsId, settingsId, ...c.codeSql.params, c.applied],
      );
      const last = (await run<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'record_vectors_knn_changes'"))[0]?.seq ?? 0;
      if (changes.length > 0 ? changes[0]!.id > c.applied + 1 : last > c.applied) return true; // pruned past us
      for (const ch of changes) {
        if (ch.mine && ch.code) c.set(ch.vrow, c.codeOf(ch.code));
        else c.remove(ch.vrow);
      }
      if (changes.length > 0) c.applied = changes[changes.length - 1]!.id;
      const fresh = await run<{ vrow: number; code: Buffer }>(
        `SELECT rowid AS vrow, ${c.codeSql.sql} AS code FROM record_vectors NOT INDEXED WHERE rowid > ? AND vector_settings_id = ? ORDER BY rowid`,
        [...c.codeSql.params, c.hwm, settingsId],
      );
      for (const r of fresh) c.set(r.vrow, c.codeOf(r.code));
      const max = (await run<{ m: number | null }>("SELECT max(rowid) AS m FROM record_vectors"))[0]?.m ?? 0;
      c.hwm = Math.max(c.hwm, max);
      await run(`UPDATE search_index_state SET seq = ? WHERE name = '${READ_MARK}' AND seq < ?`, [c.hwm, c.hwm]);
      // Readers that have not applied the pruned entries see the gap above and reload.
      const first =
        changes.length > 0 ? (await run<{ id: number }>("SELECT min(id) AS id FROM record_vectors_knn_changes"))[0]!.id : c.applied;
      if (c.applied - first >= PRUNE_LOG_ABOVE) await run("DELETE FROM record_vectors_knn_changes WHERE id <= ?", [c.applied]);
      c.compact();
      if (c.alive === 0 && c.vrows.length > 1024) c.release(); // e.g. the dataset was deleted
      // A centre taken from few vectors is redone once the setting has grown (a few reloads while small).
      return c.loadedAt < MEAN_SAMPLE && c.alive >= 2 * Math.max(c.loadedAt, 2_500);
    });
    if (reload) {
      c.applied = -1;
      await this.sync(settingsId, c);
    }
  }

  /**
   * Loads every code of the setting in batches of separate transactions, so that other requests get
   * the connection in between (at 1M vectors: seconds, not one long hold). Each batch raises the read
   * mark to its last rowid: a row inserted meanwhile at or below it is logged, above it is read later.
   */
  private async load(settingsId: string, c: Codes): Promise<void> {
    const [{ n, logged }] = (await this.all<{ n: number; logged: number }>(
      "SELECT (SELECT count(*) FROM record_vectors WHERE vector_settings_id = ?) AS n, coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'record_vectors_knn_changes'), 0) AS logged",
      [settingsId],
    )) as [{ n: number; logged: number }];
    c.reset(Math.ceil(n * 1.05) + 16);
    c.setMean(
      (
        await this.all<{ vector: Buffer }>(`SELECT vector FROM record_vectors WHERE vector_settings_id = ? LIMIT ${MEAN_SAMPLE}`, [
          settingsId,
        ])
      ).map((r) => r.vector),
    );
    c.applied = logged;
    for (;;) {
      const rows = await this.db.transaction().execute(async (trx) => {
        const batch = (
          await trx.executeQuery<{ vrow: number; code: Buffer }>(
            CompiledQuery.raw(
              `SELECT rowid AS vrow, ${c.codeSql.sql} AS code FROM record_vectors NOT INDEXED WHERE rowid > ? AND vector_settings_id = ? ORDER BY rowid LIMIT ${LOAD_BATCH}`,
              [...c.codeSql.params, c.hwm, settingsId],
            ),
          )
        ).rows;
        const top = batch.length > 0 ? batch[batch.length - 1]!.vrow : c.hwm;
        await trx.executeQuery(
          CompiledQuery.raw(`UPDATE search_index_state SET seq = ? WHERE name = '${READ_MARK}' AND seq < ?`, [top, top]),
        );
        return batch;
      });
      for (const r of rows) c.set(r.vrow, c.codeOf(r.code));
      if (rows.length > 0) c.hwm = rows[rows.length - 1]!.vrow;
      if (rows.length < LOAD_BATCH) break;
    }
    c.loadedAt = c.alive;
  }

  /** Loads or brings up to date the codes of a vector setting ahead of its first search (search/warm-up.ts). */
  async warm(settingsId: string): Promise<void> {
    await this.codes(settingsId);
  }

  /**
   * Resolves once the setting's index is built as its codes call for (none needed, waiting or running;
   * the far side included), or after `maxMs`. The warm-up leaves the CPU to the build until then
   * (search/warm-up.ts).
   */
  async indexSettled(settingsId: string, maxMs = 120_000): Promise<void> {
    const until = Date.now() + maxMs;
    for (;;) {
      const c = this.settings.get(settingsId);
      if (!c || Date.now() > until) return;
      if (!c.building && !c.buildTimer) {
        if (!this.needsIndex(c)) return;
        this.scheduleIndex(c);
      }
      // Unreferenced: a server closing meanwhile exits without waiting for it.
      await new Promise((resolve) => setTimeout(resolve, 50).unref());
    }
  }

  /**
   * Keeps the codes of a dataset's vector settings in step with its writes, off the request path
   * (run after a bulk call's response is written, while the client prepares its next batch): each
   * sync reads the batch's new vectors (~4.5 us each), so that the first similarity search after an
   * import finds the codes ready instead of reading them all (~5 s at 1M vectors). Codes not loaded
   * yet are loaded here only while the setting is small (up to `followLoadMax` vectors, i.e. from the
   * start of an import); larger ones are left to the warm-up and the first search.
   */
  async follow(datasetId: string): Promise<void> {
    const settings = await this.all<{ id: string }>("SELECT id FROM vectors_settings WHERE dataset_id = ?", [datasetId]);
    for (const { id } of settings) {
      if (this.following.has(id)) continue;
      if ((this.settings.get(id)?.applied ?? -1) < 0) {
        if (this.tooLargeToFollow.has(id)) continue;
        const n =
          (
            await this.all<{ n: number }>("SELECT count(*) AS n FROM (SELECT 1 FROM record_vectors WHERE vector_settings_id = ? LIMIT ?)", [
              id,
              this.followLoadMax + 1,
            ])
          )[0]?.n ?? 0;
        if (n > this.followLoadMax) {
          this.tooLargeToFollow.add(id);
          continue;
        }
      }
      this.following.add(id);
      try {
        await this.codes(id);
        this.followed++;
      } finally {
        this.following.delete(id);
      }
    }
  }

  /** Similarity search; null (the caller's exact scan) when the vector setting is unknown. */
  async knnSearch(query: SearchQuery): Promise<SearchResult | null> {
    const vector = query.vector!;
    if (!/^[0-9a-fA-F-]{1,64}$/.test(vector.settingsId)) return null;
    const codes = await this.codes(vector.settingsId);
    if (!codes) return null;
    // Over-fetch: the queue's status filters keep most neighbours, other filters (metadata, values) may keep few.
    const selective = query.filters.some((f) => f.scope.entity !== "response_status" && f.scope.entity !== "record");
    const k = Math.max(64, selective ? query.limit * 8 : query.limit * 2 + 16);
    return codes.alive <= this.exactBelow ? this.exactSearch(query, k) : this.approximateSearch(query, codes, k);
  }

  /**
   * Exact: the k nearest by cosine distance, the filters and the score on those only (k grown while
   * the filters reject too many). A candidate counts only when strictly nearer than the k-th, so
   * nothing unseen can rank before it.
   */
  private async exactSearch(query: SearchQuery, k: number): Promise<SearchResult> {
    const vector = query.vector!;
    const most = vector.order === "most_similar";
    const exact = encodeVector(vector.value);
    for (;;) {
      const near = await this.all<{ vrow: number; distance: number }>(
        `SELECT rowid AS vrow, vec_distance_cosine(vector, ?) AS distance FROM record_vectors WHERE vector_settings_id = ? ORDER BY distance ${most ? "ASC" : "DESC"} LIMIT ?`,
        [exact, vector.settingsId, k],
      );
      const complete = near.length < k;
      const cutoff = complete ? null : near[near.length - 1]!.distance;
      const candidates = near
        .filter((n) => cutoff === null || (most ? n.distance < cutoff : n.distance > cutoff))
        .map((n) => ({ vrow: n.vrow, score: n.distance }));
      const rows = await this.filterBest(query, candidates);
      if (complete || rows.length >= query.limit) return this.result(query, rows);
      k *= 4;
    }
  }

  /**
   * Approximate: `count` candidates by Hamming distance, rescored exactly and filtered; grown while the
   * filters reject too many. With an index, the candidates come from its lists nearest to the query
   * (`probeFraction` of the codes, grown with `count`) and its tail; past PROBE_MAX, from every code.
   * least_similar through the index: from the lists whose centroid is least similar to the query
   * (`farProbeFraction`), by the far side's finer estimate (knn-ivf.ts, `FarSide`).
   */
  private async approximateSearch(query: SearchQuery, codes: Codes, k: number): Promise<SearchResult> {
    const vector = query.vector!;
    const most = vector.order === "most_similar";
    let count = k * (codes.ivf && (most || codes.ivf.farSide) ? (most ? this.indexOversample : this.farOversample) : this.oversample);
    // most_similar: Hamming distance to the query's code; enough there (recall@50 1.0 at 1M bench
    // vectors, ~15 ms of the scan). least_similar without an index: the far side is flat (the 50
    // farthest of 1M differ little from the next thousands), where Hamming ranks poorly (recall
    // 0.30); the asymmetric scores of the negated query over every code reach 0.6 for ~80 ms of CPU.
    // So least_similar has two estimators, both needed: these codes (every row has one: a setting
    // without an index, below `indexAbove`, or an index whose far side is not in yet; and an index's
    // tail, scaled by its `tailScale`), and an index's far side (knn-ivf.ts, `FarSide`: codes around
    // each list's centroid, finer, but only for the rows of the index's snapshot, and built after it).
    const probe = most ? codes.quantize(vector.value) : null;
    const negated = most ? null : vector.value.map((x) => -x);
    for (let fraction = most ? this.probeFraction : this.farProbeFraction; ;) {
      const indexed = codes.ivf !== null && (most || codes.ivf.farSide !== null) && fraction <= PROBE_MAX;
      if (!indexed) codes.scored += codes.size;
      const candidates = indexed
        ? most
          ? codes.indexedCandidates(vector.value, count, fraction)
          : codes.farCandidates(
              vector.value,
              count,
              await this.farLists(codes.ivf!, vector.value, Math.max(Math.ceil(fraction * codes.ivf!.size), count * 4), count),
            )
        : probe
          ? codes.nearest(probe, count)
          : codes.best(codes.scoresFor(negated!), count);
      // Scored, then filtered a slice at a time (the queue's filters in SQL: the in-memory record statuses saved ~7 ms of
      // CPU per most_similar call at 1M, no p95 of 50 annotators working together: docs/performance.md, issue 25).
      const rows = await this.filterBest(query, await this.scored(query, candidates));
      if ((!indexed && candidates.length >= codes.alive) || rows.length >= query.limit) return this.result(query, rows);
      // Grow by the observed rejection rate (at least 4x).
      const kept = Math.max(rows.length, 1) / Math.max(candidates.length, 1);
      const grown = Math.max(count * 4, Math.ceil((query.limit / kept) * 1.5));
      fraction *= grown / count;
      count = grown;
    }
  }

  /**
   * The best `count` of least_similar's lists (knn-ivf.ts, `farScan`: ~100K codes at 1M, ~5 ms) on one
   * of the store's read threads, which read the index's shared memory; else, or if the thread fails, here.
   */
  private async farLists(ivf: BinaryIvf, values: number[], target: number, count: number) {
    const data = ivf.farScanData;
    const pool = this.options.offThread === false ? null : readPoolFor(this.db);
    if (pool && data.codes.buffer instanceof SharedArrayBuffer) {
      try {
        const listed = await pool.farScan(data, Float64Array.from(values), target, count);
        this.scannedOffThread++;
        return { ivf, ...listed };
      } catch {
        // The thread failed (or the pool closed): scanned here.
      }
    }
    return { ivf, ...farScan(data, values, target, count, FAR_SCAN_HELPERS) };
  }

  /** The candidates (record_vectors rowids) with their exact cosine distance to the query, read from the vectors alone. */
  private async scored(query: SearchQuery, vrows: number[]): Promise<{ vrow: number; score: number }[]> {
    if (vrows.length === 0) return [];
    const vector = query.vector!;
    return this.read<{ vrow: number; score: number }>(
      { name: "candidateDistances", vector: encodeVector(vector.value), vrows, settingsId: vector.settingsId },
      vector.order === "least_similar",
    );
  }

  /**
   * A read of the candidates (their vectors, records, responses) on one of the store's read threads
   * when it has them (sqlite-read-pool.ts: read-only connections, WAL), so that a search's SQLite work
   * (~25 us per candidate at 1M: a random page of `record_vectors` each, ~8 ms for least_similar's
   * 464) runs beside the request thread instead of on it; else, or if the thread fails, on the connection.
   * least_similar's only (`offThread`): most_similar's fits on the request thread (~8 ms of CPU at 1M),
   * where it waits for no thread hand-over (measured at 50 annotators at pace: p95 52 on it, 118-141 ms off it).
   */
  private async read<T>(statement: ReadStatement, offThread: boolean): Promise<T[]> {
    const pool = offThread && this.options.offThread !== false ? readPoolFor(this.db) : null;
    if (pool) {
      try {
        const rows = await pool.rows<T>(statement);
        this.readOffThread++;
        return rows;
      } catch {
        // The thread failed (or the pool closed): the connection answers.
      }
    }
    const { sql, params } = readStatementSql(statement, filterSql);
    return this.all<T>(sql, params);
  }

  /**
   * The scored candidates that pass the query's filters, as many as `result` needs: the filters run
   * on the candidates in score order, a slice at a time, until `limit` passed (at 1M a page of 50
   * takes 1,160 candidates from the codes; their records and the response filter were read for
   * each). A slice is never cut inside a run of equal scores (ties are broken by seq, which only the
   * records know), so every candidate left scores strictly worse than all kept ones. With fewer than
   * `limit` passing, every candidate was filtered.
   */
  private async filterBest(
    query: SearchQuery,
    candidates: { vrow: number; score: number }[],
  ): Promise<{ id: string; seq: number; score: number }[]> {
    const most = query.vector!.order === "most_similar";
    const scored = [...candidates].sort((x, y) => (most ? x.score - y.score : y.score - x.score));
    const kept: { id: string; seq: number; score: number }[] = [];
    for (let from = 0, take = Math.max(query.limit * 2, 32); from < scored.length && kept.length < query.limit; take *= 2) {
      let to = Math.min(scored.length, from + take);
      while (to < scored.length && scored[to]!.score === scored[to - 1]!.score) to++;
      const slice = scored.slice(from, to);
      const scoreOf = new Map(slice.map((c) => [c.vrow, c.score]));
      for (const r of await this.filterRows(
        query,
        slice.map((c) => c.vrow),
      ))
        kept.push({ id: r.id, seq: r.seq, score: scoreOf.get(r.vrow)! });
      from = to;
    }
    return kept;
  }

  /** The candidates (record_vectors rowids) that pass the query's filters. */
  private async filterRows(query: SearchQuery, vrows: number[]): Promise<{ vrow: number; id: string; seq: number }[]> {
    const vector = query.vector!;
    const statement: ReadStatement = {
      name: "candidateRecords",
      vrows,
      settingsId: vector.settingsId,
      datasetId: query.datasetId,
      excludeRecordId: vector.excludeRecordId || null,
      filters: query.filters,
      userId: query.userId,
    };
    return this.read(statement, vector.order === "least_similar");
  }

  private result(query: SearchQuery, rows: { id: string; seq: number; score: number }[]): SearchResult {
    const most = query.vector!.order === "most_similar";
    rows.sort((x, y) => (most ? x.score - y.score : y.score - x.score) || x.seq - y.seq);
    // Cosine similarity in [-1, 1] as the query score (1 = same direction).
    const hits = rows.slice(0, query.limit).map((r) => ({ recordId: r.id, score: 1 - r.score }));
    return { hits, total: hits.length };
  }
}
