/**
 * Asymmetric scores of binary codes with the CPU's popcount, for least similar's far side (knn-ivf.ts,
 * `farScan`). A code's asymmetric score Σ q_i·(bit_i ? 1 : -1) took 48 lookups of a per-query table per
 * 384-bit code (~14 ms of CPU for the ~100K codes a least similar search scans at 1M vectors). Here the
 * query is quantised to 4 bits per dimension (RaBitQ's query: q_i ≈ lo + Δ·u_i, u_i < 16) and written as
 * bit planes, so that a code's score needs only popcounts: U = Σ_{bit set} u_i = Σ_b 2^b·popcount(code & plane_b),
 * P = popcount(code), score = 2·(lo·P + Δ·U) - Σ_i (lo + Δ·u_i). Recall@50 of least similar at 1M is the
 * exact query's (0.682 against 0.685, 20 queries); the function below scores 100K codes in ~2-4 ms.
 *
 * The function (assembled with wabt's wat2wasm 1.0.39 from this text, 238 bytes):
 *
 *   (module
 *     (import "env" "memory" (memory 0))
 *     (func (export "planes") (param $codes i32) (param $n i32) (param $w i32) (param $planes i32) (param $out i32)
 *       (local $j i32) (local $p i32) (local $x i64) (local $acc i64) (local $s1 i32) (local $s2 i32) (local $s3 i32)
 *       (local.set $s1 (i32.shl (local.get $w) (i32.const 3)))
 *       (local.set $s2 (i32.shl (local.get $w) (i32.const 4)))
 *       (local.set $s3 (i32.add (local.get $s1) (local.get $s2)))
 *       (block $done
 *         (loop $code
 *           (br_if $done (i32.eqz (local.get $n)))
 *           (local.set $acc (i64.const 0))
 *           (local.set $p (local.get $planes))
 *           (local.set $j (local.get $w))
 *           (loop $word
 *             (local.set $x (i64.load (local.get $codes)))
 *             (local.set $acc
 *               (i64.add (local.get $acc)
 *                 (i64.add
 *                   (i64.add
 *                     (i64.shl (i64.popcnt (local.get $x)) (i64.const 16))
 *                     (i64.popcnt (i64.and (local.get $x) (i64.load (local.get $p)))))
 *                   (i64.add
 *                     (i64.shl (i64.popcnt (i64.and (local.get $x) (i64.load (i32.add (local.get $p) (local.get $s1))))) (i64.const 1))
 *                     (i64.add
 *                       (i64.shl (i64.popcnt (i64.and (local.get $x) (i64.load (i32.add (local.get $p) (local.get $s2))))) (i64.const 2))
 *                       (i64.shl (i64.popcnt (i64.and (local.get $x) (i64.load (i32.add (local.get $p) (local.get $s3))))) (i64.const 3)))))))
 *             (local.set $codes (i32.add (local.get $codes) (i32.const 8)))
 *             (local.set $p (i32.add (local.get $p) (i32.const 8)))
 *             (local.set $j (i32.sub (local.get $j) (i32.const 1)))
 *             (br_if $word (local.get $j)))
 *           (i32.store (local.get $out) (i32.wrap_i64 (local.get $acc)))
 *           (local.set $out (i32.add (local.get $out) (i32.const 4)))
 *           (local.set $n (i32.sub (local.get $n) (i32.const 1)))
 *           (br $code)))))
 *
 * i.e. for i < n: out32[i] = Σ_{j < w} popcnt(x_j)·65536 + Σ_{b < 4} popcnt(x_j & plane_b_j)·2^b, with x_j the j-th
 * 64-bit word of code i, plane b at `planes + b·w·8`.
 */
export const PLANES_MODULE = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x09, 0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00, 0x02, 0x0f, 0x01, 0x03,
  0x65, 0x6e, 0x76, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x07, 0x0a, 0x01, 0x06, 0x70, 0x6c,
  0x61, 0x6e, 0x65, 0x73, 0x00, 0x00, 0x0a, 0xb7, 0x01, 0x01, 0xb4, 0x01, 0x03, 0x02, 0x7f, 0x02, 0x7e, 0x03, 0x7f, 0x20, 0x02, 0x41, 0x03,
  0x74, 0x21, 0x09, 0x20, 0x02, 0x41, 0x04, 0x74, 0x21, 0x0a, 0x20, 0x09, 0x20, 0x0a, 0x6a, 0x21, 0x0b, 0x02, 0x40, 0x03, 0x40, 0x20, 0x01,
  0x45, 0x0d, 0x01, 0x42, 0x00, 0x21, 0x08, 0x20, 0x03, 0x21, 0x06, 0x20, 0x02, 0x21, 0x05, 0x03, 0x40, 0x20, 0x00, 0x29, 0x03, 0x00, 0x21,
  0x07, 0x20, 0x08, 0x20, 0x07, 0x7b, 0x42, 0x10, 0x86, 0x20, 0x07, 0x20, 0x06, 0x29, 0x03, 0x00, 0x83, 0x7b, 0x7c, 0x20, 0x07, 0x20, 0x06,
  0x20, 0x09, 0x6a, 0x29, 0x03, 0x00, 0x83, 0x7b, 0x42, 0x01, 0x86, 0x20, 0x07, 0x20, 0x06, 0x20, 0x0a, 0x6a, 0x29, 0x03, 0x00, 0x83, 0x7b,
  0x42, 0x02, 0x86, 0x20, 0x07, 0x20, 0x06, 0x20, 0x0b, 0x6a, 0x29, 0x03, 0x00, 0x83, 0x7b, 0x42, 0x03, 0x86, 0x7c, 0x7c, 0x7c, 0x7c, 0x21,
  0x08, 0x20, 0x00, 0x41, 0x08, 0x6a, 0x21, 0x00, 0x20, 0x06, 0x41, 0x08, 0x6a, 0x21, 0x06, 0x20, 0x05, 0x41, 0x01, 0x6b, 0x21, 0x05, 0x20,
  0x05, 0x0d, 0x00, 0x0b, 0x20, 0x04, 0x20, 0x08, 0xa7, 0x36, 0x02, 0x00, 0x20, 0x04, 0x41, 0x04, 0x6a, 0x21, 0x04, 0x20, 0x01, 0x41, 0x01,
  0x6b, 0x21, 0x01, 0x0c, 0x00, 0x0b, 0x0b, 0x0b,
]);

/**
 * A query quantised to `bits` bit planes (`queryPlanes`): plane b holds bit b of each dimension's level u_i
 * (`words` 32-bit words per plane). A code's packed count is P·65536 + U, its score 2·(lo·P + Δ·U) - total.
 */
export interface QueryPlanes {
  planes: Uint32Array;
  bits: number;
  lo: number;
  delta: number;
  /** Σ_i (lo + Δ·u_i) over the dimensions. */
  total: number;
}

/**
 * The bit planes of a query (`values`, `dimensions` of them, in codes of `words` 32-bit words): 4 bits per
 * dimension, fewer where 4 would let U reach 65,536 (above 4,369 dimensions; the JavaScript count then).
 * Self-contained (the read threads evaluate its source, sqlite-read-pool.ts).
 */
export function queryPlanes(values: ArrayLike<number>, words: number, dimensions: number): QueryPlanes {
  let bits = 4;
  while (bits > 1 && ((1 << bits) - 1) * dimensions >= 65536) bits--;
  const levels = (1 << bits) - 1;
  let lo = Infinity,
    hi = -Infinity;
  for (let d = 0; d < dimensions; d++) {
    const x = values[d] ?? 0;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (!(hi > lo)) hi = lo + 1;
  const delta = (hi - lo) / levels;
  const planes = new Uint32Array(bits * words);
  let total = 0;
  for (let d = 0; d < dimensions; d++) {
    const u = Math.round(((values[d] ?? 0) - lo) / delta);
    total += lo + delta * u;
    for (let b = 0; b < bits; b++) if ((u >> b) & 1) planes[b * words + (d >>> 5)] = planes[b * words + (d >>> 5)]! | (1 << (d & 31));
  }
  return { planes, bits, lo, delta, total };
}

/**
 * The packed counts (P·65536 + U, `QueryPlanes`) of the codes in `ranges` (pairs of first code and count, `ranges`
 * entries of them), in that order: a view valid until the next call. `codes` holds `words` 32-bit words per code.
 */
export type PlaneScorer = ((q: QueryPlanes, codes: Uint32Array, words: number, ranges: Uint32Array, count: number) => Int32Array) & {
  /** Whether it counts with the WebAssembly function (tests). */
  readonly wasm: boolean;
};

/**
 * A scorer with the WebAssembly function of `module` (`PLANES_MODULE`), in a memory of its own into which the
 * ranges' codes are copied (~0.5 ms for 100K 384-bit codes; the far side's codes stay in the shared memory the
 * read threads scan); without WebAssembly, for an odd number of words or fewer than 4 planes, the same counts
 * in JavaScript. Self-contained (the read threads evaluate its source, sqlite-read-pool.ts).
 */
export function planeScorer(module: Uint8Array | null): PlaneScorer {
  const api = (globalThis as unknown as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  type Kernel = (codes: number, n: number, w: number, planes: number, out: number) => void;
  const wasm = ((): { memory: WebAssemblyMemory; run: Kernel } | null => {
    try {
      if (!api || !module) return null;
      const memory = new api.Memory({ initial: 1 });
      return { memory, run: new api.Instance(new api.Module(module), { env: { memory } }).exports.planes as Kernel };
    } catch {
      return null;
    }
  })();
  const popcount = (x: number): number => {
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  };
  const score = (q: QueryPlanes, codes: Uint32Array, words: number, ranges: Uint32Array, count: number): Int32Array => {
    let n = 0;
    for (let r = 0; r < count; r++) n += ranges[2 * r + 1]!;
    if (!wasm || words % 2 !== 0 || q.bits !== 4) {
      const out = new Int32Array(n);
      const { planes, bits } = q;
      for (let r = 0, k = 0; r < count; r++) {
        for (let i = ranges[2 * r]!, end = i + ranges[2 * r + 1]!; i < end; i++, k++) {
          let acc = 0;
          for (let w = 0; w < words; w++) {
            const x = codes[i * words + w]!;
            acc += popcount(x) << 16;
            for (let b = 0; b < bits; b++) acc += popcount(x & planes[b * words + w]!) << b;
          }
          out[k] = acc;
        }
      }
      return out;
    }
    // Layout: the planes, the packed counts, then the codes (8-byte aligned).
    const outAt = Math.ceil((q.planes.length * 4) / 8) * 8;
    const codesAt = Math.ceil((outAt + n * 4) / 8) * 8;
    const bytes = codesAt + n * words * 4;
    const { memory, run } = wasm;
    if (bytes > memory.buffer.byteLength) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / 65536));
    const { buffer } = memory;
    new Uint32Array(buffer, 0, q.planes.length).set(q.planes);
    const target = new Uint32Array(buffer, codesAt, n * words);
    for (let r = 0, at = 0; r < count; r++) {
      const from = ranges[2 * r]! * words,
        size = ranges[2 * r + 1]! * words;
      target.set(codes.subarray(from, from + size), at);
      at += size;
    }
    run(codesAt, n, words / 2, 0, outAt);
    return new Int32Array(buffer, outAt, n);
  };
  return Object.assign(score, { wasm: wasm !== null });
}

/** The part of the WebAssembly API used here (the server's TypeScript libs have no DOM types). */
interface WebAssemblyMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: { env: { memory: WebAssemblyMemory } }) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WebAssemblyMemory;
}
