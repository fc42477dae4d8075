/** The index of the first element of an ascending array that is at least `value` (binary search; `length` when none). */
export function firstAtLeast<T extends number | string>(sorted: ArrayLike<T>, value: T, length = sorted.length): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether an ascending array holds `value`. */
export function sortedHas(sorted: ArrayLike<number>, value: number): boolean {
  const i = firstAtLeast(sorted, value);
  return i < sorted.length && sorted[i] === value;
}
