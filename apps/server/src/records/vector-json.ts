import type { JsonBytes } from "./json-bytes.js";
import { shortestDecimal, storedVector } from "./read.js";

const FLOAT32_MIN_NORMAL = 1.1754943508222875e-38;
const COMMA = 44;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
/** Room for the longest value's text (`-1.17549435e-38` and the like: 16 bytes) with its comma. */
const MAX_VALUE_BYTES = 24;

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
    const a = Math.abs(f);
    if (a >= FLOAT32_MIN_NORMAL && a < 1) {
      let k = Math.round(f * 1e6);
      // shortestDecimal's first test: the 6-decimal rounding k / 1e6 maps back to f (and is not 0 or ±1).
      if (k !== 0 && k > -1e6 && k < 1e6 && Math.fround(k / 1e6) === f) {
        if (k < 0) {
          buffer[at++] = MINUS;
          k = -k;
        }
        buffer[at++] = ZERO;
        buffer[at++] = DOT;
        // The 6 decimals, leading zeros kept, then the trailing zeros taken back (k is not 0: one digit is not).
        const high = (k / 10_000) | 0;
        const rest = k - high * 10_000;
        const middle = (rest / 100) | 0;
        const low = rest - middle * 100;
        buffer[at++] = ZERO + ((high / 10) | 0);
        buffer[at++] = ZERO + (high % 10);
        buffer[at++] = ZERO + ((middle / 10) | 0);
        buffer[at++] = ZERO + (middle % 10);
        buffer[at++] = ZERO + ((low / 10) | 0);
        buffer[at++] = ZERO + (low % 10);
        while (buffer[at - 1] === ZERO) at--;
        continue;
      }
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
