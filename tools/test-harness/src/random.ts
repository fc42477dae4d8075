/**
 * A seeded pseudo-random stream in [0, 1) (mulberry32) for the out-of-process suites' data: the same
 * seed gives the same sequence, so a failing run can be replayed (as apps/server/src/testing/random.ts).
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
