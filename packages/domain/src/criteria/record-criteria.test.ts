import { describe, expect, it } from "vitest";
import { MAX_FILTERS, MAX_TERMS_VALUES, normalizeRange, PageCriteria, RecordCriteria } from "./record-criteria.js";

describe("RecordCriteria.toSearchBody (api-contract section 4)", () => {
  it("the pending filter adds a record-status filter of pending", () => {
    expect(new RecordCriteria({ datasetId: "d" }).toSearchBody()).toEqual({
      filters: {
        and: [
          { type: "terms", scope: { entity: "response", property: "status" }, values: ["pending"] },
          { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
        ],
      },
    });
    expect(new RecordCriteria({ datasetId: "d", status: "submitted" }).toSearchBody().filters?.and).toEqual([
      { type: "terms", scope: { entity: "response", property: "status" }, values: ["submitted"] },
    ]);
  });
  it("maps text, metadata, response, suggestion filters and sort", () => {
    const c = new RecordCriteria({
      datasetId: "d",
      status: "draft",
      searchText: " cats ",
      searchField: "text",
      metadata: [
        { kind: "terms", name: "lang", values: ["en"] },
        { kind: "range", name: "len", ge: 1, le: 5 },
        { kind: "range", name: "n", ge: null, le: 9 },
      ],
      responses: [
        { kind: "terms", question: "label", values: ["positive"] },
        { kind: "range", question: "rating", ge: 2 },
      ],
      suggestions: [
        { kind: "range", question: "label", property: "score", ge: 0.5, le: 1 },
        { kind: "terms", question: "label", property: "agent", values: ["gpt"] },
      ],
      sort: [
        { key: { entity: "record", property: "inserted_at" }, order: "desc" },
        { key: { entity: "metadata", name: "len" }, order: "asc" },
        { key: { entity: "suggestion", question: "label", property: "score" }, order: "desc" },
        { key: { entity: "response", question: "rating" }, order: "asc" },
      ],
    });
    const body = c.toSearchBody();
    expect(body.query).toEqual({ text: { q: "cats", field: "text" } });
    expect(body.filters?.and.slice(1)).toEqual([
      { type: "terms", scope: { entity: "metadata", metadata_property: "lang" }, values: ["en"] },
      { type: "range", scope: { entity: "metadata", metadata_property: "len" }, ge: 1, le: 5 },
      { type: "range", scope: { entity: "metadata", metadata_property: "n" }, le: 9 },
      { type: "terms", scope: { entity: "response", question: "label" }, values: ["positive"] },
      { type: "range", scope: { entity: "response", question: "rating" }, ge: 2 },
      { type: "range", scope: { entity: "suggestion", question: "label", property: "score" }, ge: 0.5, le: 1 },
      { type: "terms", scope: { entity: "suggestion", question: "label", property: "agent" }, values: ["gpt"] },
    ]);
    expect(body.sort).toEqual([
      { scope: { entity: "record", property: "inserted_at" }, order: "desc" },
      { scope: { entity: "metadata", metadata_property: "len" }, order: "asc" },
      { scope: { entity: "suggestion", question: "label", property: "score" }, order: "desc" },
      { scope: { entity: "response", question: "rating" }, order: "asc" },
    ]);
    expect(c.isFiltered && c.isSorted).toBe(true);
  });
  it("maps similarity to a vector query", () => {
    const c = new RecordCriteria({ datasetId: "d", similarity: { recordId: "r9", vectorName: "emb", limit: 50, order: "least" } });
    expect(c.toSearchBody().query).toEqual({ vector: { name: "emb", record_id: "r9", max_results: 50, order: "least_similar" } });
    c.similarity = { recordId: "r9", vectorName: "emb", limit: 5, order: "most" };
    expect(c.toSearchBody().query?.vector?.order).toBe("most_similar");
    expect(c.isFilteringBySimilarity).toBe(true);
  });
  it("clones deeply", () => {
    const c = new RecordCriteria({ datasetId: "d", metadata: [{ kind: "terms", name: "a", values: ["x"] }] });
    const copy = c.clone();
    copy.page.next();
    (copy.metadata[0] as { values: string[] }).values.push("y");
    expect(c.page.page).toBe(1);
    expect(c.metadata[0]).toEqual({ kind: "terms", name: "a", values: ["x"] });
    expect(new RecordCriteria({ datasetId: "d" }).isFiltered).toBe(false);
  });
});

describe("PageCriteria", () => {
  it("steps by 1 in focus and by the page size in bulk, remembering the direction", () => {
    const focus = new PageCriteria();
    expect([focus.shown, focus.fetchSize, focus.buffer]).toEqual([1, 10, 5]);
    focus.next();
    expect(focus.page).toBe(2);
    focus.previous();
    expect([focus.page, focus.isBackward]).toEqual([1, true]);
    focus.previous();
    expect(focus.page).toBe(1);
    const bulk = new PageCriteria(1, "bulk", 20);
    expect([bulk.shown, bulk.fetchSize, bulk.buffer]).toEqual([20, 20, 20]);
    bulk.next();
    expect(bulk.page).toBe(21);
    bulk.goTo(1);
    expect(bulk.isBackward).toBe(true);
    bulk.goTo(41);
    expect(bulk.isBackward).toBe(false);
    bulk.goToFirst();
    expect(bulk.isFirstPage).toBe(true);
  });
});

describe("RecordCriteria.toSearchBody keeps the contract's limits", () => {
  it("drops filters without values or bounds, orders swapped bounds and caps values, filters and sort", () => {
    const c = new RecordCriteria({
      datasetId: "d",
      status: "submitted",
      metadata: [
        { kind: "terms", name: "a", values: [] },
        { kind: "range", name: "b", ge: null, le: null },
        { kind: "range", name: "c", ge: 9, le: 2 },
      ],
      responses: [
        { kind: "range", question: "rating", ge: Number.NaN, le: 4 },
        { kind: "terms", question: "label", values: Array.from({ length: 300 }, (_, i) => `v${i}`) },
      ],
      sort: Array.from({ length: 12 }, (_, i) => ({ key: { entity: "metadata" as const, name: `m${i}` }, order: "asc" as const })),
    });
    const body = c.toSearchBody();
    expect(body.filters?.and.slice(1, 3)).toEqual([
      { type: "range", scope: { entity: "metadata", metadata_property: "c" }, ge: 2, le: 9 },
      { type: "range", scope: { entity: "response", question: "rating" }, le: 4 },
    ]);
    const terms = body.filters?.and[3];
    expect(terms?.type === "terms" ? terms.values.length : 0).toBe(MAX_TERMS_VALUES);
    expect(body.sort).toHaveLength(10);
    const many = new RecordCriteria({
      datasetId: "d",
      metadata: Array.from({ length: 60 }, (_, i) => ({ kind: "terms" as const, name: `m${i}`, values: ["x"] })),
    });
    expect(many.toSearchBody().filters?.and).toHaveLength(MAX_FILTERS);
    expect(normalizeRange(1, 2)).toEqual({ ge: 1, le: 2 });
    expect(normalizeRange(undefined, null)).toBeNull();
  });
});
