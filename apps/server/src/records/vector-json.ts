import { EXACT_FLOAT32, shortestDecimal, storedVector } from "./read.js";

const FLOAT32_MIN_NORMAL = 1.1754943508222875e-38;
const COMMA = 44;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
/** Room for the longest value's text (`-1.17549435e-38` and the like: 16 bytes) with its comma. */
const MAX_VALUE_BYTES = 24;

let scratch = Buffer.allocUnsafe(16 * 1024);

/**
 * `JSON.stringify(storedVector(vector, exact))` without the array of numbers: a page of 256 records with a
 * 384-dimension vector decoded to numbers and stringified cost ~10 ms of the request thread, the numbers' garbage
 * more; written as bytes here ~3 ms. A value that decodes to its 6-decimal rounding (|v| < 1: model embeddings as
 * sent, records/read.ts's shortestDecimal) is written from that integer (`-0.049168`), which is the text
 * JSON.stringify gives that number (at most 6 significant digits, no exponent above 1e-7); any other value, and
 * every vector with an `exact` text or float32 marker, goes through JSON.stringify.
 */
export function vectorJson(vector: Buffer | Uint8Array, exact: string | null): string {
  if (exact !== null && exact !== EXACT_FLOAT32) return JSON.stringify(storedVector(vector, exact));
  const floats = new Float32Array(Uint8Array.from(vector).buffer);
  if (exact === EXACT_FLOAT32) return JSON.stringify(Array.from(floats));
  if (scratch.length < 2 + floats.length * MAX_VALUE_BYTES) scratch = Buffer.allocUnsafe(2 + floats.length * MAX_VALUE_BYTES);
  const out = scratch;
  let at = 0;
  out[at++] = 91; // [
  for (let i = 0; i < floats.length; i++) {
    if (i > 0) out[at++] = COMMA;
    const f = floats[i]!;
    const a = Math.abs(f);
    if (a >= FLOAT32_MIN_NORMAL && a < 1) {
      let k = Math.round(f * 1e6);
      // shortestDecimal's first test: the 6-decimal rounding k / 1e6 maps back to f (and is not 0 or ±1).
      if (k !== 0 && k > -1e6 && k < 1e6 && Math.fround(k / 1e6) === f) {
        if (k < 0) {
          out[at++] = MINUS;
          k = -k;
        }
        out[at++] = ZERO;
        out[at++] = DOT;
        // The 6 decimals from the first, leading zeros kept, trailing zeros left out (the loop ends when k is 0).
        for (let unit = 100_000; k > 0; unit /= 10) {
          const digit = Math.floor(k / unit);
          out[at++] = ZERO + digit;
          k -= digit * unit;
        }
        continue;
      }
    }
    at += out.write(JSON.stringify(shortestDecimal(f)), at, "latin1");
  }
  out[at++] = 93; // ]
  return out.toString("latin1", 0, at);
}
