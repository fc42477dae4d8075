import { describe, expect, it } from "vitest";
import { intervalDistance, jaccardDistance, nominalDistance, ordinalDistance, rankDistance } from "./distances.js";
import { krippendorffAlpha } from "./krippendorff-alpha.js";

/**
 * Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers,
 * 12 units, values 1..5 with missing data. The paper gives nominal 0.743, ordinal 0.815,
 * interval 0.849. The full-precision references were computed with the `krippendorff` 0.9.0
 * package from PyPI: `krippendorff.alpha(reliability_data=data, level_of_measurement=...)`.
 */
const byObserver: (number | null)[][] = [
  [1, 2, 3, 3, 2, 1, 4, 1, 2, null, null, null],
  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, null, 3],
  [null, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, null],
  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, null],
];
const units = (data: (number | null)[][]): number[][] =>
  data[0]!.map((_, u) => data.map((row) => row[u]).filter((v): v is number => v !== null && v !== undefined));

describe("krippendorffAlpha", () => {
  const key = (v: number) => String(v);

  it("matches the paper's worked example C (nominal, ordinal, interval)", () => {
    const nominal = krippendorffAlpha(units(byObserver), key, nominalDistance);
    expect(nominal.value).toBeCloseTo(0.743421052631579, 12);
    const ordinal = krippendorffAlpha(
      units(byObserver),
      key,
      (counts: Map<string, { value: number; count: number }>) =>
        ordinalDistance(new Map([...counts.values()].map((c) => [c.value, c.count]))),
      true,
    );
    expect(ordinal.value).toBeCloseTo(0.8153875037548814, 12);
    expect(krippendorffAlpha(units(byObserver), key, intervalDistance).value).toBeCloseTo(0.8491071428571428, 12);
  });

  it("counts the pairable units and values only (unit 12 has a single value)", () => {
    const alpha = krippendorffAlpha(units(byObserver), key, nominalDistance);
    expect(alpha.records).toBe(11);
    expect(alpha.responses).toBe(40);
  });

  it("matches the paper's example A (two observers, binary data): 0.095", () => {
    const a = [
      [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
      [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
    ];
    // krippendorff.alpha(reliability_data=A, level_of_measurement="nominal") = 0.09523809523809534
    expect(krippendorffAlpha(units(a), key, nominalDistance).value).toBeCloseTo(0.09523809523809534, 12);
  });

  it("is undefined (null) with a single value in the data, and with no pairable unit", () => {
    expect(
      krippendorffAlpha(
        [
          [1, 1],
          [1, 1, 1],
        ],
        key,
        nominalDistance,
      ).value,
    ).toBeNull();
    expect(krippendorffAlpha([[1], [2]], key, nominalDistance)).toEqual({ value: null, records: 0, responses: 0 });
  });

  it("uses a set distance for multi-label answers (Jaccard)", () => {
    // nltk 3.10.4: AnnotationTask([(coder, item, frozenset(labels))...], distance=jaccard_distance).alpha() = 0.575
    const c1 = [["a"], ["a", "b"], ["b"], ["c"], ["a", "c"], ["b", "c"]];
    const c2 = [["a"], ["a"], ["b"], ["c"], ["a", "c"], ["c"]];
    const c3 = [["a", "b"], ["a", "b"], ["b", "c"], ["c"], ["a"], ["b", "c"]];
    const sets = c1.map((_, i) => [c1[i]!, c2[i]!, c3[i]!]);
    const alpha = krippendorffAlpha(sets, (s) => [...s].sort().join(), jaccardDistance);
    expect(alpha.value).toBeCloseTo(0.575, 12);
    expect(alpha).toMatchObject({ records: 6, responses: 18 });
  });

  it("uses a rank distance for rankings ((1 - Spearman's rho) / 2)", () => {
    // nltk 3.10.4 AnnotationTask(..., distance=rd).alpha() with rd(a, b) = sum((x - y)^2) / (n(n^2 - 1)/3)
    // over rank vectors of options x, y, z, w: 0.7227722772277227
    const ranking = (ranks: number[]) => ranks.map((rank, i) => ({ value: "xyzw"[i]!, rank }));
    const c1 = [
      [1, 2, 3, 4],
      [1, 2, 3, 4],
      [2, 1, 3, 4],
      [4, 3, 2, 1],
      [1, 3, 2, 4],
    ];
    const c2 = [
      [1, 2, 3, 4],
      [2, 1, 3, 4],
      [2, 1, 3, 4],
      [4, 3, 1, 2],
      [1, 2, 3, 4],
    ];
    const c3 = [
      [1, 2, 4, 3],
      [1, 2, 3, 4],
      [1, 2, 3, 4],
      [4, 3, 2, 1],
      [3, 1, 2, 4],
    ];
    const rankings = c1.map((_, i) => [ranking(c1[i]!), ranking(c2[i]!), ranking(c3[i]!)]);
    expect(krippendorffAlpha(rankings, (r) => r.map((i) => i.rank).join(), rankDistance).value).toBeCloseTo(0.7227722772277227, 12);
  });
});

describe("distances", () => {
  it("rank distance is 0 for equal rankings, 1 for a reversed one, and ranks missing options last", () => {
    const r = (...values: string[]) => values.map((value, i) => ({ value, rank: i + 1 }));
    expect(rankDistance(r("a", "b", "c"), r("a", "b", "c"))).toBe(0);
    expect(rankDistance(r("a", "b", "c"), r("c", "b", "a"))).toBe(1);
    expect(
      rankDistance(r("a", "b"), [
        { value: "a", rank: 1 },
        { value: "b", rank: null },
      ]),
    ).toBeGreaterThan(0);
  });
  it("jaccard distance: disjoint 1, equal 0, half overlap", () => {
    expect(jaccardDistance(["a"], ["b"])).toBe(1);
    expect(jaccardDistance(["a", "b"], ["b", "a"])).toBe(0);
    expect(jaccardDistance(["a", "b"], ["b", "c"])).toBeCloseTo(2 / 3, 12);
    expect(jaccardDistance([], [])).toBe(0);
  });
});
