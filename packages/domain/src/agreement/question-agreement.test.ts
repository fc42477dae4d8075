import { describe, expect, it } from "vitest";
import { lowestRecords, questionAgreement, type AnnotatedRecord } from "./question-agreement.js";

const records = (rows: (string | number | null)[][], users = ["u1", "u2", "u3", "u4"]): AnnotatedRecord[] =>
  rows[0]!.map((_, r) => ({
    recordId: `r${String(r).padStart(2, "0")}`,
    answers: rows.flatMap((row, u) => (row[r] === null || row[r] === undefined ? [] : [{ userId: users[u]!, value: row[r]! }])),
  }));

describe("questionAgreement", () => {
  it("label_selection: alpha (nominal), Fleiss, percent agreement, Cohen per pair", () => {
    // Reference: krippendorff 0.9.0 nominal alpha 0.5714285714285714; statsmodels fleiss_kappa 0.55;
    // sklearn cohen_kappa_score 0.5333 (u1,u2), 0.78125 (u1,u3), 0.34375 (u2,u3).
    const data = [
      ["1", "2", "1", "3", "2", "2", "1"],
      ["1", "2", "2", "3", "2", "1", "1"],
      ["1", "2", "1", "3", "3", "2", "1"],
    ];
    const result = questionAgreement({ name: "label", type: "label_selection" }, records(data));
    expect(result).toMatchObject({ records: 7, responses: 21 });
    expect(result.figures.alpha_nominal).toEqual({ value: expect.closeTo(0.5714285714285714, 12), records: 7, responses: 21 });
    expect(result.figures.fleiss_kappa?.value).toBeCloseTo(0.55, 12);
    expect(result.figures.percent_agreement?.value).toBeCloseTo(5 / 7, 12);
    const kappa = Object.fromEntries(result.pairs.map((p) => [p.users.join("-"), p.figures.cohen_kappa?.value]));
    expect(kappa["u1-u2"]).toBeCloseTo(0.5333333333333333, 12);
    expect(kappa["u1-u3"]).toBeCloseTo(0.78125, 12);
    expect(kappa["u2-u3"]).toBeCloseTo(0.34375, 12);
    expect(result.pairs[0]).toMatchObject({
      records: 7,
      figures: { percent_agreement: { value: expect.closeTo(5 / 7, 12), records: 7, responses: 14 } },
    });
    // lowest: the three records with one dissenter (1/3 of pairs agree), record order among ties
    expect(result.lowest.map((r) => r.recordId)).toEqual(["r02", "r04", "r05"]);
  });

  it("rating: interval and ordinal alpha of Krippendorff (2011) example C; Fleiss undefined with unequal counts", () => {
    const data = [
      [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
      [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
    ];
    const options = [1, 2, 3, 4, 5].map((value) => ({ value }));
    const result = questionAgreement({ name: "rating", type: "rating", options }, records(data));
    expect(result.figures.alpha_interval?.value).toBeCloseTo(0.8491071428571428, 12);
    expect(result.figures.alpha_ordinal?.value).toBeCloseTo(0.8153875037548814, 12);
    expect(result.figures.fleiss_kappa).toEqual({ value: null, records: 11, responses: 40 });
    expect(result).toMatchObject({ records: 11, responses: 40 });
  });

  it("span: exact and token-overlap F1 over every pair and record", () => {
    const text = "Ada Lovelace met Charles Babbage";
    const spans: AnnotatedRecord[] = [
      {
        recordId: "r1",
        text,
        answers: [
          {
            userId: "a",
            value: [
              { start: 0, end: 12, label: "PER" },
              { start: 17, end: 31, label: "PER" },
            ],
          },
          {
            userId: "b",
            value: [
              { start: 0, end: 3, label: "PER" },
              { start: 17, end: 31, label: "PER" },
            ],
          },
        ],
      },
    ];
    const result = questionAgreement({ name: "ner", type: "span" }, spans);
    // exact: 1 match of 4 spans -> 0.5; tokens: a {0,1,3,4}, b {0,3,4} -> 2*3/7
    expect(result.figures.span_f1_exact).toEqual({ value: 0.5, records: 1, responses: 2 });
    expect(result.figures.span_f1_token?.value).toBeCloseTo(6 / 7, 12);
    expect(result.pairs[0]?.figures.span_f1_exact?.value).toBe(0.5);
    expect(result.figures.alpha_nominal).toBeUndefined();
  });

  it("text: only the share of identical answers (trimmed)", () => {
    const result = questionAgreement(
      { name: "comment", type: "text" },
      records([
        ["good", "bad "],
        ["good ", "worse"],
      ]),
    );
    expect(Object.keys(result.figures)).toEqual(["percent_agreement"]);
    expect(result.figures.percent_agreement?.value).toBe(0.5);
  });

  it("multi-label: Jaccard alpha (nltk reference 0.575) and exact-set percent agreement", () => {
    const sets = [
      [["a"], ["a", "b"], ["b"], ["c"], ["a", "c"], ["b", "c"]],
      [["a"], ["a"], ["b"], ["c"], ["c", "a"], ["c"]],
      [["a", "b"], ["a", "b"], ["b", "c"], ["c"], ["a"], ["b", "c"]],
    ];
    const data: AnnotatedRecord[] = sets[0]!.map((_, r) => ({
      recordId: `r${r}`,
      answers: sets.map((row, u) => ({ userId: `u${u}`, value: row[r]! })),
    }));
    const result = questionAgreement({ name: "topics", type: "multi_label_selection" }, data);
    expect(result.figures.alpha_jaccard?.value).toBeCloseTo(0.575, 12);
    // exact-set agreement per record: 1/3, 1/3, 1/3, 1, 1/3, 1/3 -> 4/9
    expect(result.figures.percent_agreement?.value).toBeCloseTo(4 / 9, 12);
  });

  it("leaves records with a single answer out of every figure", () => {
    const result = questionAgreement({ name: "label", type: "label_selection" }, [
      { recordId: "x", answers: [{ userId: "a", value: "1" }] },
    ]);
    expect(result).toMatchObject({ records: 0, responses: 0, pairs: [], lowest: [] });
    expect(result.figures.alpha_nominal).toEqual({ value: null, records: 0, responses: 0 });
  });
});

describe("lowestRecords", () => {
  it("keeps the n lowest, skipping full agreement", () => {
    const list = [0.5, 1, 0.2, 0.9, 0.1].map((agreement, i) => ({ recordId: `r${i}`, agreement, responses: 2 }));
    expect(lowestRecords(list, 2).map((r) => r.recordId)).toEqual(["r4", "r2"]);
  });
});
