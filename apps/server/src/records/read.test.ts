import { describe, expect, it } from "vitest";
import { seededRandom } from "../testing/random.js";
import { decodeVector, encodeVector, EXACT_FLOAT32, storedVector, vectorExact } from "./read.js";

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
