import type { Distance } from "./distances.js";
import { figure, type AgreementFigure } from "./figure.js";

/**
 * Krippendorff's alpha, 1 - D_o / D_e, over units (records) of values (one per annotator) with
 * any distance (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"). Units with fewer
 * than two values are not pairable and are left out. Values are grouped by `key` so that the
 * expected disagreement costs (distinct values)^2 distance calls, not (values)^2.
 *
 * `distanceFor` receives the marginal counts by key (for the ordinal metric); return the distance.
 */
export function krippendorffAlpha<T>(
  units: readonly (readonly T[])[],
  key: (value: T) => string,
  distanceFor: Distance<T> | ((counts: Map<string, { value: T; count: number }>) => Distance<T>),
  needsCounts = false,
): AgreementFigure {
  const pairable = units.filter((u) => u.length >= 2);
  const counts = new Map<string, { value: T; count: number }>();
  let n = 0;
  for (const unit of pairable) {
    for (const value of unit) {
      const k = key(value);
      const entry = counts.get(k);
      if (entry) entry.count++;
      else counts.set(k, { value, count: 1 });
      n++;
    }
  }
  if (pairable.length === 0 || counts.size < 2) return figure(null, pairable.length, n);
  const distance = needsCounts ? (distanceFor as (c: typeof counts) => Distance<T>)(counts) : (distanceFor as Distance<T>);
  const cache = new Map<string, number>();
  const between = (a: T, ka: string, b: T, kb: string): number => {
    if (ka === kb) return 0;
    const id = ka < kb ? `${ka}\u0000${kb}` : `${kb}\u0000${ka}`;
    let d = cache.get(id);
    if (d === undefined) { d = distance(a, b); cache.set(id, d); }
    return d;
  };
  let observed = 0;
  for (const unit of pairable) {
    const keys = unit.map(key);
    let sum = 0;
    for (let i = 0; i < unit.length; i++) for (let j = 0; j < unit.length; j++) if (i !== j) sum += between(unit[i]!, keys[i]!, unit[j]!, keys[j]!);
    observed += sum / (unit.length - 1);
  }
  observed /= n;
  const distinct = [...counts.entries()];
  let expected = 0;
  for (let i = 0; i < distinct.length; i++) {
    for (let j = i + 1; j < distinct.length; j++) {
      const [ka, a] = distinct[i]!;
      const [kb, b] = distinct[j]!;
      expected += 2 * a.count * b.count * between(a.value, ka, b.value, kb);
    }
  }
  expected /= n * (n - 1);
  return figure(expected === 0 ? null : 1 - observed / expected, pairable.length, n);
}
