import { describe, expect, it } from "vitest";
import { RangeDraft, rangeStep } from "./range-draft";

describe("RangeDraft", () => {
  it("starts at the current filter, or at min and max, clamped and in order", () => {
    expect(new RangeDraft(1, 20, true, null).bounds).toEqual({ ge: 1, le: 20 });
    expect(new RangeDraft(1, 20, true, { ge: 4, le: 9 }).bounds).toEqual({ ge: 4, le: 9 });
    expect(new RangeDraft(1, 20, true, { ge: 30, le: -5 }).bounds).toEqual({ ge: 1, le: 20 });
  });

  it("clamps typed bounds into min..max; a bound past the other moves both; empty or junk falls back to the extreme", () => {
    const d = new RangeDraft(3, 40, true, null);
    d.setText("low", "1");
    expect(d.commitText("low")).toBe(false);
    expect([d.bounds, d.lowText]).toEqual([{ ge: 3, le: 40 }, "3"]);
    d.setText("high", "99");
    d.commitText("high");
    d.setText("low", "12");
    expect(d.commitText("low")).toBe(true);
    expect(d.bounds).toEqual({ ge: 12, le: 40 });
    d.setText("high", "5");
    d.commitText("high");
    expect(d.bounds).toEqual({ ge: 5, le: 5 });
    d.setText("high", "abc");
    d.commitText("high");
    d.setText("low", "");
    d.commitText("low");
    expect([d.bounds, d.lowText, d.highText]).toEqual([{ ge: 3, le: 40 }, "3", "40"]);
  });

  it("takes slider values in either order, rounded to the step", () => {
    const d = new RangeDraft(0, 1, false, null);
    expect(d.step).toBe(0.01);
    d.setValues([0.1 + 0.2, 0.05]);
    expect([d.values, d.lowText, d.highText]).toEqual([[0.05, 0.3], "0.05", "0.3"]);
  });

  it("steps integers by 1 and floats by a power of ten near a hundredth of the span", () => {
    expect([rangeStep(0, 1000, true), rangeStep(0, 1000, false), rangeStep(0.5, 2.5, false), rangeStep(2, 2, false)]).toEqual([
      1, 10, 0.01, 0.01,
    ]);
    expect(new RangeDraft(2, 2, false, null).hasSpan).toBe(false);
  });
});
