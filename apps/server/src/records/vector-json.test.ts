import { describe, expect, it } from "vitest";
import { EXACT_FLOAT32, encodeVector, storedVector, vectorExact } from "./read.js";
import { JsonBytes } from "./json-bytes.js";
import { writeVectorJson } from "./vector-json.js";

/** The text writeVectorJson writes (into a small buffer first, so that it grows). */
function vectorJson(vector: Buffer | Uint8Array, exact: string | null): string {
  const out = new JsonBytes(16);
  out.text("x");
  writeVectorJson(out, vector, exact);
  return out.bytes().toString("utf8").slice(1);
}

/** What the records' JSON had before: the stored vector's numbers through JSON.stringify. */
const expected = (values: number[]) => {
  const blob = encodeVector(values);
  const exact = vectorExact(values);
  return { blob, exact, json: JSON.stringify(storedVector(blob, exact)) };
};

/** A deterministic stream of numbers in [0, 1). */
function draws(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("a stored vector's JSON", () => {
  it("is JSON.stringify of its stored values for 6-decimal embeddings, with leading and trailing zeros and signs", () => {
    const r = draws(7);
    const values = [0.049168, -0.016838, 0.1, -0.5, 0.000001, -0.000001, 0.00001, 0.123456, -0.999999, 0.10203, 0.5];
    for (let i = 0; i < 2_000; i++) values.push(Math.round((r() * 2 - 1) * 1e6) / 1e6);
    const { blob, exact, json } = expected(values);
    expect(exact).toBeNull();
    expect(vectorJson(blob, exact)).toBe(json);
    expect(JSON.parse(vectorJson(blob, exact))).toEqual(values);
  });

  it("is JSON.stringify of its stored values for every 6-decimal fraction in (-1, 1)", () => {
    const values = Array.from({ length: 1_999_999 }, (_, i) => (i - 999_999) / 1e6);
    const { blob, exact, json } = expected(values);
    expect(exact).toBeNull();
    expect(vectorJson(blob, exact)).toBe(json);
  });

  it("is JSON.stringify of its stored values for values that are not 6-decimal fractions", () => {
    const values = [0, -0, 1, -1, 0.9999996, 1.5, 123.456, -98765.4, 1e-7, -3e-9, 2.5e-38, 1e-40, 3.4e38, 1234567, 0.1234567, 1 / 3];
    const { blob, exact, json } = expected(values);
    expect(vectorJson(blob, exact)).toBe(json);
  });

  it("is JSON.stringify of float32 values and of values kept exactly", () => {
    const r = draws(11);
    const float32 = Array.from({ length: 200 }, () => Math.fround(r() * 2 - 1));
    const f32 = expected(float32);
    expect(f32.exact).toBe(EXACT_FLOAT32);
    expect(vectorJson(f32.blob, f32.exact)).toBe(f32.json);
    const doubles = Array.from({ length: 200 }, () => r() * 2 - 1);
    const kept = expected(doubles);
    expect(kept.exact).not.toBeNull();
    expect(vectorJson(kept.blob, kept.exact)).toBe(kept.json);
    expect(JSON.parse(vectorJson(kept.blob, kept.exact))).toEqual(doubles);
  });

  it("writes a vector longer than any before it and an empty one", () => {
    const long = expected(Array.from({ length: 5_000 }, (_, i) => -0.123456 + i * 1e-6));
    expect(vectorJson(long.blob, long.exact)).toBe(long.json);
    expect(vectorJson(Buffer.alloc(0), null)).toBe("[]");
  });

  it("reads a blob at any byte offset of its buffer", () => {
    const { blob, exact, json } = expected([0.25, -0.049168, 0.5]);
    for (const offset of [1, 2, 3, 4]) {
      const shifted = Buffer.alloc(blob.length + offset);
      blob.copy(shifted, offset);
      expect(vectorJson(shifted.subarray(offset), exact)).toBe(json);
    }
  });

  it("writes NaN and infinities as null, as JSON.stringify does", () => {
    const blob = Buffer.from(new Float32Array([Number.NaN, Number.POSITIVE_INFINITY, -0.25, Number.NEGATIVE_INFINITY]).buffer);
    expect(vectorJson(blob, null)).toBe(JSON.stringify(storedVector(blob, null)));
    expect(vectorJson(blob, null)).toBe("[null,null,-0.25,null]");
  });
});
