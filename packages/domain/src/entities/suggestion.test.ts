import { describe, expect, it } from "vitest";
import { Suggestion } from "./suggestion.js";

describe("Suggestion", () => {
  it("multi-label scores are per item", () => {
    const s = new Suggestion({ id: "s", questionId: "q", value: ["a", "b"], score: [0.25, 0.75], agent: "gpt" });
    expect(s.scoreFor("b")).toBe(0.75);
    expect(s.scoreFor("z")).toBeNull();
    expect(s.isSuggested("a")).toBe(true);
    expect(s.isSuggested("c")).toBe(false);
    expect(s.agent).toBe("gpt");
  });
  it("ranking scores and ranks are per item", () => {
    const s = new Suggestion({
      id: "s",
      questionId: "q",
      value: [
        { value: "x", rank: 2 },
        { value: "y", rank: 1 },
      ],
      score: [0.1, 0.9],
      agent: null,
    });
    expect(s.scoreFor("y")).toBe(0.9);
    expect(s.rankFor("x")).toBe(2);
    expect(s.rankFor("nope")).toBeNull();
    expect(s.isSuggested("x")).toBe(true);
  });
  it("single scores apply to the whole suggestion", () => {
    const s = new Suggestion({ id: "s", questionId: "q", value: "pos", score: 0.66, agent: null });
    expect(s.scoreFor()).toBe(0.66);
    expect(s.isSuggested("pos")).toBe(true);
    expect(s.rankFor("pos")).toBeNull();
    expect(s.spanFor({ start: 0, end: 1, label: "x" })).toBeNull();
    expect(new Suggestion({ id: "s", questionId: "q", value: "pos", score: [0.1], agent: null }).scoreFor()).toBeNull();
  });
  it("span suggestions match on label, start and end", () => {
    const s = new Suggestion({
      id: "s",
      questionId: "q",
      value: [
        { start: 0, end: 4, label: "PER" },
        { start: 5, end: 9, label: "ORG" },
      ],
      score: [0.3, 0.8],
      agent: null,
    });
    expect(s.spanFor({ start: 5, end: 9, label: "ORG" })).toEqual({ span: { start: 5, end: 9, label: "ORG" }, score: 0.8 });
    expect(s.spanFor({ start: 5, end: 9, label: "PER" })).toBeNull();
    expect(s.spanFor({ start: 5, end: 8, label: "ORG" })).toBeNull();
    const single = new Suggestion({ id: "s", questionId: "q", value: [{ start: 0, end: 4, label: "PER" }], score: 0.5, agent: null });
    expect(single.spanFor({ start: 0, end: 4, label: "PER" })?.score).toBe(0.5);
  });
  it("scores are shown with 1 decimal", () => {
    expect(Suggestion.formatScore(0.876)).toBe("0.9");
    expect(Suggestion.formatScore(null)).toBe("");
  });
});
