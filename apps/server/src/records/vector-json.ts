import type { JsonBytes } from "./json-bytes.js";
import { shortestDecimal, storedVector } from "./read.js";

const COMMA = 44;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
/** Room for the longest value's text (`-1.17549435e-38` and the like: 16 bytes) with its comma. */
const MAX_VALUE_BYTES = 24;

/** The two ASCII digits of 0-99, the first in the low byte. */
const PAIRS = Uint16Array.from({ length: 100 }, (_, i) => (ZERO + Math.floor(i / 10)) | ((ZERO + (i % 10)) << 8));

function writePair(buffer: Uint8Array, at: number, pair: number): number {
  const digits = PAIRS[pair]!;
  buffer[at] = digits & 0xff;
  buffer[at + 1] = digits >> 8;
  return at + 2;
}

/**
 * Writes `JSON.stringify(storedVector(vector, exact))` without the array of numbers: a page of 256 records with a
 * 384-dimension vector decoded to numbers and stringified cost ~15 ms of the request thread (the numbers' decimal
 * text), its garbage more. A value that decodes to its 6-decimal rounding (|v| < 1: model embeddings as sent,
 * records/read.ts's shortestDecimal) is written from that integer's digits (`-0.049168`), which is the text
 * JSON.stringify gives that number (at most 6 significant digits, no exponent above 1e-7); any other value, and
 * every vector with an `exact` text or float32 marker, goes through JSON.stringify.
 */
export function writeVectorJson(out: JsonBytes, vector: Buffer | Uint8Array, exact: string | null): void {
  if (exact !== null) {
    out.text(JSON.stringify(storedVector(vector, exact)));
    return;
  }
  const floats = float32View(vector);
  const buffer = out.reserve(2 + floats.length * MAX_VALUE_BYTES);
  let at = out.length;
  buffer[at++] = 91; // [
  for (let i = 0; i < floats.length; i++) {
    if (i > 0) buffer[at++] = COMMA;
    const f = floats[i]!;
    let k = Math.round(f * 1e6);
    // shortestDecimal's first test: the 6-decimal rounding k / 1e6 maps back to f, for 0 < |f| < 1 (k is then not 0
    // nor ±1e6; NaN, infinities and subnormal floats fail it).
    if (k !== 0 && k > -1e6 && k < 1e6 && Math.fround(k / 1e6) === f) {
      if (k < 0) {
        buffer[at++] = MINUS;
        k = -k;
      }
      buffer[at++] = ZERO;
      buffer[at++] = DOT;
      // The 6 decimals as three pairs of digits, leading zeros kept, then the trailing zeros taken back (k is not 0).
      const high = (k / 10_000) | 0;
      const rest = k - high * 10_000;
      const middle = (rest / 100) | 0;
      at = writePair(buffer, at, high);
      at = writePair(buffer, at, middle);
      at = writePair(buffer, at, rest - middle * 100);
      while (buffer[at - 1] === ZERO) at--;
      continue;
    }
    at += buffer.write(JSON.stringify(shortestDecimal(f)), at, "latin1");
  }
  buffer[at++] = 93; // ]
  out.advance(at - out.length);
}

/** The blob's floats, a view of its bytes when they are 4-byte aligned (Node's pooled buffers are), else of a copy. */
function float32View(vector: Buffer | Uint8Array): Float32Array {
  if (vector.byteOffset % 4 === 0) return new Float32Array(vector.buffer, vector.byteOffset, vector.byteLength >> 2);
  const bytes = new Uint8Array(vector.byteLength);
  bytes.set(vector);
  return new Float32Array(bytes.buffer, 0, bytes.byteLength >> 2);
}
