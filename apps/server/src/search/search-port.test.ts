import { describe, expect, it } from "vitest";
import { countLimit, filterCountLimit, totalBoundFor, type SearchFilter, type SearchQuery } from "./search-port.js";

const metadata: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "source" }, values: ["news"] };
const pending: SearchFilter = { type: "terms", scope: { entity: "response_status" }, values: ["pending"] };
const status: SearchFilter = { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] };
const vector: SearchQuery["vector"] = { settingsId: "v", value: [1, 0], order: "most_similar", excludeRecordId: null };

describe("totalBoundFor", () => {
  it("bounds the total of a text query and of a metadata filter", () => {
    expect(totalBoundFor({ text: { q: "word", field: null }, vector: null, filters: [] }, 10_000)).toBe(10_000);
    expect(totalBoundFor({ text: null, vector: null, filters: [pending, metadata] }, 10_000)).toBe(10_000);
  });

  it("bounds the total of a suggestion, response value or time range filter without text", () => {
    const suggestion: SearchFilter = { type: "terms", scope: { entity: "suggestion", questionId: "q", property: "value" }, values: ["a"] };
    const answer: SearchFilter = { type: "range", scope: { entity: "response_value", questionName: "rating" }, ge: 3, le: null };
    const inserted: SearchFilter = { type: "range", scope: { entity: "record", property: "inserted_at" }, ge: "2020-01-01", le: null };
    for (const f of [suggestion, answer, inserted])
      expect(totalBoundFor({ text: null, vector: null, filters: [pending, f] }, 10_000)).toBe(10_000);
  });

  it("keeps the queue's total exact (record and response status terms)", () => {
    const submitted: SearchFilter = { type: "terms", scope: { entity: "response_status" }, values: ["submitted"] };
    expect(totalBoundFor({ text: null, vector: null, filters: [] }, 10_000)).toBeNull();
    expect(totalBoundFor({ text: null, vector: null, filters: [pending, status] }, 10_000)).toBeNull();
    expect(totalBoundFor({ text: null, vector: null, filters: [submitted] }, 10_000)).toBeNull();
  });

  it("never bounds a similarity search (its total is its results)", () => {
    expect(totalBoundFor({ text: { q: "word", field: null }, vector, filters: [metadata] }, 10_000)).toBeNull();
  });
});

describe("countLimit", () => {
  const query = (totalBound: number | null, offset: number, limit: number): SearchQuery => ({
    datasetId: "d",
    userId: null,
    text: null,
    vector: null,
    filters: [],
    sort: [],
    offset,
    limit,
    totalBound,
  });
  it("raises the bound to the end of the page, and is null when the total is exact", () => {
    expect(countLimit(query(10_000, 0, 10))).toBe(10_000);
    expect(countLimit(query(10_000, 20_000, 50))).toBe(20_050);
    expect(countLimit(query(null, 0, 10))).toBeNull();
    expect(countLimit(query(0, 0, 10))).toBeNull();
  });
});

describe("filterCountLimit", () => {
  const query = (totalBound: number | null, filterBound: number | null | undefined, offset = 0, limit = 10): SearchQuery => ({
    datasetId: "d",
    userId: null,
    text: null,
    vector: null,
    filters: [metadata],
    sort: [],
    offset,
    limit,
    totalBound,
    ...(filterBound === undefined ? {} : { filterBound }),
  });
  it("takes the lower of the two bounds, the fallback when the filter bound is unset, raised to the end of the page", () => {
    expect(filterCountLimit(query(10_000, 1_000), null)).toBe(1_000);
    expect(filterCountLimit(query(500, 1_000), null)).toBe(500);
    expect(filterCountLimit(query(10_000, undefined), 1_000)).toBe(1_000);
    expect(filterCountLimit(query(10_000, undefined), null)).toBe(10_000);
    expect(filterCountLimit(query(10_000, 1_000, 2_000, 50), null), "a deep page").toBe(2_050);
  });
  it("is the total bound alone when the filter bound is null or 0, and null (exact) without a total bound", () => {
    expect(filterCountLimit(query(10_000, null), 1_000)).toBe(10_000);
    expect(filterCountLimit(query(10_000, 0), 1_000)).toBe(10_000);
    expect(filterCountLimit(query(null, 1_000), 1_000)).toBeNull();
  });
});
