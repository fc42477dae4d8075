import { describe, expect, it } from "vitest";
import { addSpan, removeSpan, snapSelection, spanLevels } from "./span-selection";

const text = "Ada Lovelace met Charles Babbage in London, 1833.";

describe("span selection (word snapping, spec 2.6)", () => {
  it("expands a partial selection outward to whole words", () => {
    // "ve" inside Lovelace .. "Cha" inside Charles
    expect(snapSelection(text, 6, 20, false)).toEqual({ start: 4, end: 24 });
    expect(text.slice(4, 24)).toBe("Lovelace met Charles");
  });
  it("stops at symbols and trims whitespace", () => {
    expect(snapSelection(text, 37, 40, false)).toEqual({ start: 36, end: 42 }); // "ondo" -> "London" (stops before ",")
    expect(snapSelection(text, 43, 48, false)).toEqual({ start: 44, end: 48 }); // " 1833" digits are word chars
  });
  it("ignores whitespace-only selections", () => {
    expect(snapSelection(text, 3, 4, false)).toBeNull();
    expect(snapSelection(text, 5, 5, true)).toBeNull();
  });
  it("keeps the exact range at character level", () => {
    expect(snapSelection(text, 6, 9, true)).toEqual({ start: 6, end: 9 });
  });
  it("works for right-to-left scripts", () => {
    const hebrew = "שלום עולם";
    expect(snapSelection(hebrew, 1, 2, false)).toEqual({ start: 0, end: 4 });
  });
});

describe("adding and removing spans", () => {
  const a = { start: 0, end: 3, label: "person" };
  const b = { start: 4, end: 12, label: "person" };
  it("replaces overlapping spans when overlapping is not allowed", () => {
    expect(addSpan([a, b], { start: 0, end: 12, label: "org" }, false)).toEqual([{ start: 0, end: 12, label: "org" }]);
    expect(addSpan([a], b, false)).toEqual([a, b]);
  });
  it("stacks spans when overlapping is allowed, without duplicates", () => {
    const both = addSpan([a, b], { start: 0, end: 12, label: "org" }, true);
    expect(both).toHaveLength(3);
    expect(addSpan(both, { start: 0, end: 12, label: "org" }, true)).toHaveLength(3);
    expect(spanLevels(both)).toEqual([0, 1, 0]);
  });
  it("removes exactly one span", () => {
    expect(removeSpan([a, b], b)).toEqual([a]);
  });
});
