import { describe, expect, it } from "vitest";
import { formatAnswer } from "./format-answer";

describe("formatAnswer", () => {
  it("formats each answer type on one line", () => {
    expect(formatAnswer("label_selection", "pos")).toBe("pos");
    expect(formatAnswer("rating", 4)).toBe("4");
    expect(formatAnswer("multi_label_selection", ["a", "b"])).toBe("a, b");
    expect(
      formatAnswer("ranking", [
        { value: "y", rank: 2 },
        { value: "x", rank: 1 },
      ]),
    ).toBe("x > y");
    expect(
      formatAnswer(
        "span",
        [
          { start: 4, end: 8, label: "ORG" },
          { start: 0, end: 3, label: "PER" },
        ],
        "Ada Acme",
      ),
    ).toBe("Ada (PER); Acme (ORG)");
    expect(formatAnswer("span", [{ start: 0, end: 3, label: "PER" }])).toBe("PER 0–3");
    expect(formatAnswer("text", undefined)).toBeNull();
  });
});
