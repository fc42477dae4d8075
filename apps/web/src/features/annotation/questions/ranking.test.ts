import { describe, expect, it } from "vitest";
import { Question } from "@tessera/domain";
import { rankOption, rankingSlots } from "./ranking";

const question = () =>
  new Question({
    id: "q",
    name: "rank",
    datasetId: "d",
    title: "Rank",
    required: true,
    settings: { type: "ranking", options: [{ value: "a" }, { value: "b" }, { value: "c" }] },
  });

describe("ranking moves and validity (spec section 4)", () => {
  it("ranks, ties and unranks options; partial rankings are partially valid, full ones valid", () => {
    const q = question();
    let items = q.answer.value as { value: string; rank: number | null }[];
    expect(q.answer.isValid).toBe(false);
    expect(q.answer.hasValidValues).toBe(true);
    items = rankOption(items, "b", 1);
    q.answer.set(items);
    expect(q.answer.isPartiallyValid).toBe(true);
    expect(q.answer.valueToSend(true)).toBeUndefined();
    expect(q.answer.valueToSend(false)).toEqual([{ value: "b", rank: 1 }]);
    items = rankOption(rankOption(items, "a", 2), "c", 2); // a tie at rank 2
    q.answer.set(items);
    expect(q.answer.isValid).toBe(true);
    expect(rankingSlots(items).slots.map((s) => s.map((i) => i.value))).toEqual([["b"], ["a", "c"], []]);
    items = rankOption(items, "a", null);
    expect(rankingSlots(items).unranked.map((i) => i.value)).toEqual(["a"]);
  });
  it("clamps ranks into 1..N", () => {
    expect(
      rankOption(
        [
          { value: "a", rank: null },
          { value: "b", rank: null },
        ],
        "a",
        9,
      )[0],
    ).toEqual({ value: "a", rank: 2 });
  });
});
