import { describe, expect, it } from "vitest";
import { parse } from "../http/errors.js";
import { parseRecordsBulk, recordsBulkSchema } from "./input.js";

const outcome = (f: () => unknown) => {
  try {
    return { ok: f() };
  } catch (error) {
    return { error: JSON.stringify(error) + String(error) };
  }
};

describe("parseRecordsBulk (the bulk routes' fast parse)", () => {
  const item = (extra: Record<string, unknown>) => ({ external_id: "e1", fields: { text: "hi" }, ...extra });
  it.each([
    ["valid vectors", { items: [item({ vectors: { emb: [0.1, -2, 3e5], other: null } })] }],
    ["no vectors", { items: [item({}), item({ external_id: 7, vectors: null })] }],
    ["a string in a vector", { items: [item({ vectors: { emb: [0.1, "x"] } })] }],
    ["a vector that is not a list", { items: [item({ vectors: { emb: { a: 1 } } })] }],
    ["vectors that are not an object", { items: [item({ vectors: [1, 2] })] }],
    ["a bad vector and a bad id", { items: [item({ id: "nope", vectors: { emb: [null, 1] } })] }],
    ["duplicate external ids", { items: [item({}), item({})] }],
    ["no items", { items: [] }],
    ["no body", undefined],
  ])("answers like the full schema: %s", (_name, body) => {
    expect(outcome(() => parseRecordsBulk(body))).toEqual(outcome(() => parse(recordsBulkSchema, body)));
  });
});
