/**
 * Hamming distances of binary codes with the CPU's popcount: a WebAssembly function (`i64.popcnt`)
 * over codes kept in the module's own memory. JavaScript has no popcount, and its best substitute, a
 * 64K-entry table looked up twice per 32-bit word, made the scan of 1M 384-bit codes ~24 ms of every
 * similarity search (bench profile at 1M records: 7.2 s of 8.4 s in `nearest` over 300 searches).
 *
 * The function (hand-assembled below, 165 bytes in all):
 *
 *   hamming(codes, n, w, probe, out): for i < n: out16[i] = sum over j < w of popcnt(codes64[i*w + j] ^ probe64[j])
 *
 * with byte offsets into the memory for `codes`, `probe` and `out`, and `w` the 64-bit words per code.
 */
const MODULE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // magic, version 1
  0x01,
  0x09,
  0x01,
  0x60,
  0x05,
  0x7f,
  0x7f,
  0x7f,
  0x7f,
  0x7f,
  0x00, // types: (i32 x5) -> ()
  0x02,
  0x0f,
  0x01,
  0x03,
  0x65,
  0x6e,
  0x76,
  0x06,
  0x6d,
  0x65,
  0x6d,
  0x6f,
  0x72,
  0x79,
  0x02,
  0x00,
  0x00, // import env.memory (min 0)
  0x03,
  0x02,
  0x01,
  0x00, // one function of type 0
  0x07,
  0x0b,
  0x01,
  0x07,
  0x68,
  0x61,
  0x6d,
  0x6d,
  0x69,
  0x6e,
  0x67,
  0x00,
  0x00, // export "hamming"
  0x0a,
  0x6e,
  0x01,
  0x6c, // code: one body of 108 bytes
  0x02,
  0x03,
  0x7f,
  0x01,
  0x7e, // locals: i, j, p (i32), d (i64) = 5, 6, 7, 8
  0x02,
  0x40,
  0x03,
  0x40, // block $done, loop $outer
  0x20,
  0x05,
  0x20,
  0x01,
  0x4f,
  0x0d,
  0x01, // if i >= n: br $done
  0x42,
  0x00,
  0x21,
  0x08, // d = 0
  0x41,
  0x00,
  0x21,
  0x06, // j = 0
  0x20,
  0x03,
  0x21,
  0x07, // p = probe
  0x02,
  0x40,
  0x03,
  0x40, // block $words, loop $word
  0x20,
  0x06,
  0x20,
  0x02,
  0x4f,
  0x0d,
  0x01, // if j >= w: br $words
  0x20,
  0x08, // d
  0x20,
  0x00,
  0x29,
  0x03,
  0x00,
  0x20,
  0x07,
  0x29,
  0x03,
  0x00,
  0x85,
  0x7b,
  0x7c,
  0x21,
  0x08, // d += popcnt(load64(codes) ^ load64(p))
  0x20,
  0x00,
  0x41,
  0x08,
  0x6a,
  0x21,
  0x00, // codes += 8
  0x20,
  0x07,
  0x41,
  0x08,
  0x6a,
  0x21,
  0x07, // p += 8
  0x20,
  0x06,
  0x41,
  0x01,
  0x6a,
  0x21,
  0x06, // j += 1
  0x0c,
  0x00,
  0x0b,
  0x0b, // br $word; end loop; end block
  0x20,
  0x04,
  0x20,
  0x08,
  0xa7,
  0x3b,
  0x01,
  0x00, // store16(out, wrap(d))
  0x20,
  0x04,
  0x41,
  0x02,
  0x6a,
  0x21,
  0x04, // out += 2
  0x20,
  0x05,
  0x41,
  0x01,
  0x6a,
  0x21,
  0x05, // i += 1
  0x0c,
  0x00,
  0x0b,
  0x0b, // br $outer; end loop; end block
  0x0b, // end function
]);

/** The part of the WebAssembly API used here (the server's TypeScript libs have no DOM types). */
interface WasmModule {
  readonly wasm: "module";
}
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: { env: { memory: WasmMemory } }) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let compiled: WasmModule | null | undefined;
const module = (): WasmModule | null => {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(MODULE) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
};

const PAGE = 65536;

/**
 * Codes of `words` 32-bit words each (an even number), `capacity` of them, in a WebAssembly memory
 * with room for the probe and the distances. `codes` is a plain Uint32Array view to read and write
 * (replaced by a new store, not resized, when the capacity must grow).
 */
export class HammingStore {
  readonly codes: Uint32Array;
  private readonly memory: WasmMemory;
  private readonly run: (codes: number, n: number, w: number, probe: number, out: number) => void;
  private readonly probeAt: number;
  private readonly outAt: number;

  readonly words: number;

  private constructor(words: number, capacity: number, api: WasmApi, mod: WasmModule) {
    this.words = words;
    const probeBytes = Math.ceil((words * 4) / 8) * 8;
    const codeBytes = capacity * words * 4;
    this.probeAt = codeBytes;
    this.outAt = codeBytes + probeBytes;
    this.memory = new api.Memory({ initial: Math.max(1, Math.ceil((this.outAt + capacity * 2) / PAGE)) });
    const instance = new api.Instance(mod, { env: { memory: this.memory } });
    this.run = instance.exports.hamming as (codes: number, n: number, w: number, probe: number, out: number) => void;
    this.codes = new Uint32Array(this.memory.buffer, 0, capacity * words);
  }

  /** Bytes of its WebAssembly memory (the codes, the probe and the distances). */
  get memoryBytes(): number {
    return this.memory.buffer.byteLength;
  }

  /** A store, or null where it cannot be used (an odd number of words, or no WebAssembly): use `hammingTable`. */
  static create(words: number, capacity: number): HammingStore | null {
    const mod = module();
    return wasm && mod && words % 2 === 0 ? new HammingStore(words, capacity, wasm, mod) : null;
  }

  /**
   * Distances of the first `size` codes to `probe` (Hamming, ≤ 65,535 bits). The array is a view of
   * the store's memory: valid until the next call.
   */
  distances(probe: Uint32Array, size: number): Uint16Array {
    return this.distancesFrom(probe, 0, size);
  }

  /** Distances of the `count` codes from index `from` to `probe` (a view of the store's memory, as `distances`). */
  distancesFrom(probe: Uint32Array, from: number, count: number): Uint16Array {
    new Uint32Array(this.memory.buffer, this.probeAt, this.words).set(probe.subarray(0, this.words));
    this.run(from * this.words * 4, count, this.words / 2, this.probeAt, this.outAt + from * 2);
    return new Uint16Array(this.memory.buffer, this.outAt + from * 2, count);
  }
}

const POPCOUNT16 = (() => {
  const t = new Uint8Array(65536);
  for (let i = 1; i < 65536; i++) t[i] = (i & 1) + t[i >>> 1]!;
  return t;
})();

/** The same distances without WebAssembly: two lookups of a 64K-entry table per 32-bit word. */
export function hammingTable(codes: Uint32Array, words: number, probe: Uint32Array, size: number): Uint16Array {
  const distances = new Uint16Array(size);
  const t = POPCOUNT16;
  for (let i = 0, o = 0; i < size; i++, o += words) {
    let d = 0;
    for (let w = 0; w < words; w++) {
      const x = codes[o + w]! ^ probe[w]!;
      d += t[x & 0xffff]! + t[x >>> 16]!;
    }
    distances[i] = d;
  }
  return distances;
}
