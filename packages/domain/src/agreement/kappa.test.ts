import { describe, expect, it } from "vitest";
import { cohenKappa, fleissKappa, percentAgreement, unitAgreement } from "./kappa.js";

/** 3 annotators x 7 records of labels 1..3 (reference values below computed with scikit-learn 1.9.1 and statsmodels 0.15.0). */
const annotators = [
  [1, 2, 1, 3, 2, 2, 1],
  [1, 2, 2, 3, 2, 1, 1],
  [1, 2, 1, 3, 3, 2, 1],
].map((row) => row.map(String));
const pairs = (a: string[], b: string[]) => a.map((v, i) => [v, b[i]!] as const);
const units = annotators[0]!.map((_, i) => annotators.map((row) => row[i]!));

describe("cohenKappa", () => {
  it("matches sklearn.metrics.cohen_kappa_score for each pair", () => {
    expect(cohenKappa(pairs(annotators[0]!, annotators[1]!)).value).toBeCloseTo(0.5333333333333333, 12);
    expect(cohenKappa(pairs(annotators[0]!, annotators[2]!)).value).toBeCloseTo(0.78125, 12);
    expect(cohenKappa(pairs(annotators[1]!, annotators[2]!)).value).toBeCloseTo(0.34375, 12);
  });
  it("matches Krippendorff (2011) example A's data: cohen_kappa_score = 0.0909", () => {
    const a = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0].map(String);
    const b = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0].map(String);
    expect(cohenKappa(pairs(a, b))).toEqual({ value: expect.closeTo(0.09090909090909094, 12), records: 10, responses: 20 });
  });
  it("is undefined when both always give the same single label, and with no record", () => {
    expect(
      cohenKappa([
        ["a", "a"],
        ["a", "a"],
      ]).value,
    ).toBeNull();
    expect(cohenKappa([])).toEqual({ value: null, records: 0, responses: 0 });
  });
});

describe("fleissKappa", () => {
  it("matches statsmodels.stats.inter_rater.fleiss_kappa(aggregate_raters(data)[0]) = 0.55", () => {
    expect(fleissKappa(units)).toEqual({ value: expect.closeTo(0.55, 12), records: 7, responses: 21 });
  });
  it("is undefined when records have different numbers of answers", () => {
    expect(
      fleissKappa([
        ["a", "b"],
        ["a", "a", "b"],
      ]),
    ).toEqual({ value: null, records: 2, responses: 5 });
  });
});

describe("percentAgreement", () => {
  it("is the mean share of agreeing pairs per record", () => {
    // records: (1,1,1) 1; (2,2,2) 1; (1,2,1) 1/3; (3,3,3) 1; (2,2,3) 1/3; (2,1,2) 1/3; (1,1,1) 1 -> 5/7
    expect(percentAgreement(units)).toEqual({ value: expect.closeTo(5 / 7, 12), records: 7, responses: 21 });
    expect(unitAgreement(["a", "b", "c"])).toBe(0);
  });
  it("leaves records with a single answer out", () => {
    expect(percentAgreement([["a"], ["a", "a"]])).toEqual({ value: 1, records: 1, responses: 2 });
  });
});
