import { describe, expect, it } from "vitest";
import { similarityIndexOff } from "./readiness.ts";

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
