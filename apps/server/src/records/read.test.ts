import { describe, expect, it } from "vitest";
import { seededRandom } from "../testing/random.js";
import { decodeVector, encodeVector, EXACT_FLOAT32, shortestDecimal, storedVector, vectorExact } from "./read.js";

const roundTrip = (values: number[]) => storedVector(encodeVector(values), vectorExact(values));

describe("vectorExact and storedVector", () => {
  it("give back every value as sent, keeping nothing beside the blob for values of at most 6 significant digits", () => {
    const random = seededRandom(19);
    for (let n = 0; n < 2000; n++) {
      // Decimals of 1 to 6 significant digits over many magnitudes, as users and rounded embeddings send.
      const values = Array.from({ length: 8 }, () =>
        Number(((random() * 2 - 1) * 10 ** Math.floor(random() * 20 - 10)).toPrecision(1 + Math.floor(random() * 6))),
      );
      expect(vectorExact(values)).toBeNull();
      expect(decodeVector(encodeVector(values))).toEqual(values);
    }
  });

  it("mark float32 values (a model's embeddings) and keep other float64 values as JSON", () => {
    const random = seededRandom(7);
    for (let n = 0; n < 500; n++) {
      const float32s = Array.from({ length: 8 }, () => Math.fround(random() * 2 - 1));
      expect(vectorExact(float32s)).toBe(EXACT_FLOAT32);
      expect(roundTrip(float32s)).toEqual(float32s);
      const float64s = Array.from({ length: 8 }, () => random() * 2 - 1);
      expect(vectorExact(float64s)).toBe(JSON.stringify(float64s));
      expect(roundTrip(float64s)).toEqual(float64s);
    }
    // Outside float32's normal range, or past its precision, the values go as JSON.
    for (const values of [[1e-40], [1e39], [0.1234567891], [0.5, 0.1, Math.fround(0.3), 0.7216326330755638]]) {
      expect(typeof vectorExact(values)).toBe("string");
      expect(roundTrip(values)).toEqual(values);
    }
    expect(vectorExact([0, -0.5, 0.25, 1, -3])).toBeNull();
  });
});

describe("shortestDecimal", () => {
  /** The definition: the first of 1 to 9 significant digits whose decimal maps to the float32 (else the float itself). */
  const reference = (f: number) => {
    for (let p = 1; p <= 9; p++) {
      const candidate = Number(f.toPrecision(p));
      if (Math.fround(candidate) === f) return candidate;
    }
    return f;
  };

  it("is the shortest decimal that maps to the float32, for any bit pattern, rounded embeddings, short decimals and the edges", () => {
    const random = seededRandom(31);
    const floats = new Float32Array(400_000);
    const view = new DataView(floats.buffer);
    for (let i = 0; i < floats.length; i++) {
      const kind = i % 4;
      if (kind === 0)
        view.setUint32(i * 4, Math.floor(random() * 2 ** 32), true); // NaN, infinities, subnormals, any exponent
      else if (kind === 1)
        floats[i] = Math.round((random() - 0.5) * 2e6) / 1e6; // a model's embedding rounded to 6 decimals
      else if (kind === 2) floats[i] = (random() - 0.5) * 10 ** Math.floor(random() * 20 - 10);
      else floats[i] = Number(((random() - 0.5) * 10 ** Math.floor(random() * 8 - 4)).toPrecision(1 + Math.floor(random() * 6)));
    }
    const edges = [
      0,
      -0,
      1,
      -1,
      0.1,
      1e-6,
      1.1754943508222875e-38,
      1e-45,
      3.4028234663852886e38,
      Infinity,
      -Infinity,
      NaN,
      0.999999,
      0.0000005,
    ];
    for (const f of [...floats, ...edges.map((e) => Math.fround(e))]) {
      const got = shortestDecimal(f);
      const want = reference(f);
      if (!(Number.isNaN(got) && Number.isNaN(want)) && got !== want) expect({ f, got }).toEqual({ f, got: want });
    }
    expect(decodeVector(encodeVector([0.051234, -0.000123, 0.1, 12.5, 1e-40]))).toEqual([
      0.051234,
      -0.000123,
      0.1,
      12.5,
      reference(Math.fround(1e-40)),
    ]);
  });
});
