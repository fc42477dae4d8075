import { describe, expect, it } from "vitest";
import {
  hasOptionValues,
  normalizeSort,
  responseFilterKinds,
  sortableKeys,
  sortKeyFromId,
  sortKeyId,
  suggestionFilterProperties,
} from "./filter-capabilities.js";

describe("filter capabilities per question type", () => {
  it("offers label/multi-label values, rating values and ranges, text exact match, nothing for ranking and span", () => {
    expect(responseFilterKinds("label_selection")).toEqual(["terms"]);
    expect(responseFilterKinds("multi_label_selection")).toEqual(["terms"]);
    expect(responseFilterKinds("rating")).toEqual(["terms", "range"]);
    expect(responseFilterKinds("text")).toEqual(["exact"]);
    expect(responseFilterKinds("ranking")).toEqual([]);
    expect(responseFilterKinds("span")).toEqual([]);
  });
  it("offers suggestion values only for option questions, score and agent for all", () => {
    expect(suggestionFilterProperties("rating")).toEqual(["value", "score", "agent"]);
    expect(suggestionFilterProperties("span")).toEqual(["score", "agent"]);
    expect(hasOptionValues("text")).toBe(false);
  });
});

describe("sort keys", () => {
  const keys = sortableKeys(
    [
      { name: "label", type: "label_selection" },
      { name: "tags", type: "multi_label_selection" },
      { name: "stars", type: "rating" },
    ],
    ["len"],
  );
  it("lists record times, metadata, suggestion score for all, suggestion/response value for single-value questions", () => {
    expect(keys.map(sortKeyId)).toEqual([
      "record:inserted_at",
      "record:updated_at",
      "metadata:len",
      "suggestion.score:label",
      "suggestion.value:label",
      "response:label",
      "suggestion.score:tags",
      "suggestion.score:stars",
      "suggestion.value:stars",
      "response:stars",
    ]);
  });
  it("maps ids back to keys and normalizes a sort list", () => {
    expect(sortKeyFromId("response:stars", keys)).toEqual({ entity: "response", question: "stars" });
    expect(sortKeyFromId("response:tags", keys)).toBeNull();
    const item = (name: string) => ({ key: { entity: "metadata" as const, name }, order: "asc" as const });
    expect(normalizeSort([item("a"), { ...item("a"), order: "desc" }, item("b")])).toEqual([item("a"), item("b")]);
    expect(normalizeSort(Array.from({ length: 12 }, (_, i) => item(`m${i}`)))).toHaveLength(10);
  });
});
