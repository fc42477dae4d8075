import type { RankingItem } from "../entities/answer.js";

/** A distance between two answers, 0 for identical ones (Krippendorff's delta squared). */
export type Distance<T> = (a: T, b: T) => number;

/** Nominal metric: 0 when equal, else 1. */
export const nominalDistance: Distance<string | number> = (a, b) => (a === b ? 0 : 1);

/** Interval metric: the squared difference. */
export const intervalDistance: Distance<number> = (a, b) => (a - b) ** 2;

/**
 * Ordinal metric of Krippendorff (2011, section E): for ranks c < k, the squared number of pairable
 * values between them, (sum of n_g for g from c to k - (n_c + n_k) / 2)^2, from the marginal counts
 * of the values actually paired.
 */
export function ordinalDistance(counts: Map<number, number>): Distance<number> {
  const ordered = [...counts.keys()].sort((a, b) => a - b);
  const cumulative = new Map<number, number>();
  let running = 0;
  for (const value of ordered) {
    running += counts.get(value)!;
    cumulative.set(value, running);
  }
  return (a, b) => {
    if (a === b) return 0;
    const [low, high] = a < b ? [a, b] : [b, a];
    const between = cumulative.get(high)! - cumulative.get(low)! + counts.get(low)!;
    return (between - (counts.get(low)! + counts.get(high)!) / 2) ** 2;
  };
}

/** Jaccard distance of two label sets: 1 - |A ∩ B| / |A ∪ B| (0 for two empty sets). */
export const jaccardDistance: Distance<readonly (string | number)[]> = (a, b) => {
  const left = new Set(a.map(String));
  const right = new Set(b.map(String));
  let both = 0;
  for (const v of left) if (right.has(v)) both++;
  const union = left.size + right.size - both;
  return union === 0 ? 0 : 1 - both / union;
};

/**
 * Rank distance of two rankings of the same options: the sum of squared rank differences divided by
 * its largest value for n options, n(n^2 - 1)/3 (a reversed order). Without ties it equals
 * (1 - Spearman's rho) / 2, so it lies in [0, 1]. Options one ranking leaves out take rank n + 1.
 */
export const rankDistance: Distance<readonly RankingItem[]> = (a, b) => {
  const values = new Set([...a, ...b].map((i) => String(i.value)));
  const n = values.size;
  if (n < 2) return 0;
  const ranks = (items: readonly RankingItem[]) => new Map(items.map((i) => [String(i.value), i.rank ?? n + 1]));
  const left = ranks(a);
  const right = ranks(b);
  let sum = 0;
  for (const v of values) sum += ((left.get(v) ?? n + 1) - (right.get(v) ?? n + 1)) ** 2;
  return Math.min(1, sum / ((n * (n * n - 1)) / 3));
};
