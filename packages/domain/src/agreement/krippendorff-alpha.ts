import type { Distance } from "./distances.js";
import { figure, type AgreementFigure } from "./figure.js";

/**
 * Distances between interned values (ids 0..K-1), computed once per pair of ids on first use:
 * a K x K table while K is small, a map keyed by a*K+b beyond (free text, many label sets).
 */
export class DistanceTable {
  private readonly table: Float64Array | null;
  private readonly map = new Map<number, number>();
  constructor(
    private readonly size: number,
    private readonly distance: (a: number, b: number) => number,
  ) {
    this.table = size <= 2048 ? new Float64Array(size * size).fill(Number.NaN) : null;
  }

  get(a: number, b: number): number {
    if (a === b) return 0;
    const [low, high] = a < b ? [a, b] : [b, a];
    const index = low * this.size + high;
    if (this.table) {
      let d = this.table[index]!;
      if (Number.isNaN(d)) {
        d = this.distance(low, high);
        this.table[index] = d;
      }
      return d;
    }
    let d = this.map.get(index);
    if (d === undefined) {
      d = this.distance(low, high);
      this.map.set(index, d);
    }
    return d;
  }
}

/**
 * Krippendorff's alpha on interned values: `ids` holds every value of the pairable units back to
 * back, unit u spanning [starts[u], starts[u + 1]). counts[k] = how many values have id k.
 * alpha = 1 - D_o / D_e with D_o = (1/n) sum_u sum_{i != j} d / (m_u - 1) and
 * D_e = sum_{k != l} n_k n_l d(k, l) / (n (n - 1)) (Krippendorff 2011).
 */
export function alphaOfIds(
  ids: ArrayLike<number>,
  starts: ArrayLike<number>,
  counts: ArrayLike<number>,
  distance: DistanceTable,
): AgreementFigure {
  const units = starts.length - 1;
  const n = ids.length;
  const present: number[] = [];
  for (let k = 0; k < counts.length; k++) if (counts[k]! > 0) present.push(k);
  if (units <= 0 || present.length < 2) return figure(null, Math.max(units, 0), n);
  let observed = 0;
  for (let u = 0; u < units; u++) {
    const from = starts[u]!;
    const to = starts[u + 1]!;
    let sum = 0;
    for (let i = from; i < to; i++) for (let j = i + 1; j < to; j++) sum += 2 * distance.get(ids[i]!, ids[j]!);
    observed += sum / (to - from - 1);
  }
  observed /= n;
  let expected = 0;
  for (let i = 0; i < present.length; i++) {
    for (let j = i + 1; j < present.length; j++) {
      const a = present[i]!;
      const b = present[j]!;
      expected += 2 * counts[a]! * counts[b]! * distance.get(a, b);
    }
  }
  expected /= n * (n - 1);
  return figure(expected === 0 ? null : 1 - observed / expected, units, n);
}

/** Interns values by key (a string, or a primitive compared by type and value): ids per value, and the first value seen for each id. */
export class Interner<T> {
  readonly values: T[] = [];
  private readonly ids = new Map<string | number, number>();
  id(key: string | number, value: T): number {
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.values.length;
      this.ids.set(key, id);
      this.values.push(value);
    }
    return id;
  }
  get size(): number {
    return this.values.length;
  }
}

/**
 * Krippendorff's alpha, 1 - D_o / D_e, over units (records) of values (one per annotator) with
 * any distance (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability"). Units with fewer
 * than two values are not pairable and are left out. Values are interned by `key`, so each
 * distinct pair of values costs one distance call.
 *
 * With `needsCounts`, `distanceFor` receives the marginal counts by key (the ordinal metric) and returns the distance.
 */
export function krippendorffAlpha<T>(
  units: readonly (readonly T[])[],
  key: (value: T) => string,
  distanceFor: Distance<T> | ((counts: Map<string, { value: T; count: number }>) => Distance<T>),
  needsCounts = false,
): AgreementFigure {
  const interner = new Interner<T>();
  const ids: number[] = [];
  const starts: number[] = [0];
  const keys: string[] = [];
  for (const unit of units) {
    if (unit.length < 2) continue;
    for (const value of unit) {
      const k = key(value);
      const id = interner.id(k, value);
      if (id === keys.length) keys.push(k);
      ids.push(id);
    }
    starts.push(ids.length);
  }
  const counts = new Float64Array(interner.size);
  for (const id of ids) counts[id]!++;
  let distance = distanceFor as Distance<T>;
  if (needsCounts) {
    const byKey = new Map(interner.values.map((value, id) => [keys[id]!, { value, count: counts[id]! }]));
    distance = (distanceFor as (c: typeof byKey) => Distance<T>)(byKey);
  }
  return alphaOfIds(ids, starts, counts, new DistanceTable(interner.size, (a, b) => distance(interner.values[a]!, interner.values[b]!)));
}
