/**
 * Exact similarity for the suites that check a similarity search against the plain answer (the
 * server's knn tests, the bench's data, the end-to-end index test): written once.
 */

/** Cosine similarity of two vectors of the same length (0 when one of them is zero). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let d = 0; d < a.length; d++) {
    dot += a[d]! * b[d]!;
    na += a[d]! ** 2;
    nb += b[d]! ** 2;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** A vector as the stores keep it (float32). */
export const asStored = (v: ArrayLike<number>): number[] => Array.from(Float32Array.from(v));

/**
 * The ids of the `limit` vectors most similar to `query` by exact cosine (`order` -1: least similar),
 * ties in the entries' order; `stored`: compared as the stores keep them (float32).
 */
export function exactTop(
  query: ArrayLike<number>,
  entries: Iterable<readonly [string, ArrayLike<number>]>,
  limit: number,
  options: { order?: 1 | -1; stored?: boolean } = {},
): string[] {
  const order = options.order ?? 1;
  const as = options.stored ? asStored : (v: ArrayLike<number>) => v;
  const q = as(query);
  return [...entries]
    .map(([id, v]) => ({ id, s: cosine(q, as(v)) }))
    .sort((x, y) => order * (y.s - x.s))
    .slice(0, limit)
    .map((x) => x.id);
}
