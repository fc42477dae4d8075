import { describe, expect, it } from "vitest";
import { searchSettled, similarityIndexOff } from "./readiness.ts";

describe("searchSettled", () => {
  it("is true only when the status says no record is left to index and no similarity index is due", () => {
    expect(searchSettled({ search_pending: { text_records: 0, similarity_indexes: 0 } })).toBe(true);
    expect(searchSettled({ search_pending: { text_records: 12, similarity_indexes: 0 } })).toBe(false);
    expect(searchSettled({ search_pending: { text_records: 0, similarity_indexes: 1 } })).toBe(false);
    // An older server (no search_pending) or no answer: not said.
    expect(searchSettled({ memory: { rss: 1, heapTotal: 1, heapUsed: 1, external: 0, arrayBuffers: 0 } })).toBe(false);
    expect(searchSettled(null)).toBe(false);
  });
});

describe("similarityIndexOff", () => {
  it("is true only when TESSERA_SEARCH_OFF names similarity-index among other names", () => {
    expect(similarityIndexOff({})).toBe(false);
    expect(similarityIndexOff({ TESSERA_SEARCH_OFF: "" })).toBe(false);
    expect(similarityIndexOff({ TESSERA_SEARCH_OFF: "similarity-index" })).toBe(true);
    expect(similarityIndexOff({ TESSERA_SEARCH_OFF: "text-cache, similarity-index" })).toBe(true);
    expect(similarityIndexOff({ TESSERA_SEARCH_OFF: "similarity-statuses" })).toBe(false);
    expect(similarityIndexOff({ TESSERA_SEARCH_OFF: "similarity-indexes" })).toBe(false);
  });
});
