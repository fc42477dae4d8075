import { describe, expect, it } from "vitest";
import { majorityAnswer } from "./majority.js";

describe("majorityAnswer", () => {
  it("label and rating: the most frequent answer; a tie is no majority", () => {
    expect(majorityAnswer("label_selection", ["pos", "neg", "pos"])).toBe("pos");
    expect(majorityAnswer("label_selection", ["pos", "neg"])).toBeUndefined();
    expect(majorityAnswer("rating", [3, 3, 4, 4, 5])).toBeUndefined();
    expect(majorityAnswer("rating", [3, null, 3, 4])).toBe(3);
    expect(majorityAnswer("label_selection", [])).toBeUndefined();
  });
  it("multi-label: the labels more than half chose", () => {
    expect(majorityAnswer("multi_label_selection", [["a", "b"], ["a"], ["a", "c"]])).toEqual(["a"]);
    expect(majorityAnswer("multi_label_selection", [["a"], ["b"]])).toBeUndefined();
  });
  it("span: the spans more than half marked", () => {
    const per = { start: 0, end: 3, label: "PER" };
    expect(majorityAnswer("span", [[per], [per, { start: 4, end: 6, label: "LOC" }], []])).toEqual([per]);
  });
  it("text and ranking: canonical equality (trimmed text, ranking order irrelevant)", () => {
    expect(majorityAnswer("text", ["yes ", "yes", "no"])).toBe("yes ");
    const r1 = [
      { value: "a", rank: 1 },
      { value: "b", rank: 2 },
    ];
    const r2 = [
      { value: "b", rank: 2 },
      { value: "a", rank: 1 },
    ];
    expect(
      majorityAnswer("ranking", [
        r1,
        r2,
        [
          { value: "a", rank: 2 },
          { value: "b", rank: 1 },
        ],
      ]),
    ).toEqual(r1);
  });
});
