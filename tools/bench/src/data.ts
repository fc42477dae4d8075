/**
 * A deterministic, realistic dataset: two text fields (50–500 and 50–80 words drawn from a Zipf
 * vocabulary, so that word frequencies and full-text hit counts look like natural text), three
 * metadata properties (terms, integer, float), one 384-dimension vector clustered like sentence
 * embeddings (see VectorSpace) and model suggestions for two questions (label and multi-label) with
 * score and agent.
 */
export const VECTOR_DIMENSIONS = 384;
export const SOURCES = ["news", "forum", "reviews", "support", "wiki"] as const;
export const SENTIMENTS = ["positive", "negative", "neutral"] as const;
export const TOPICS = ["politics", "sports", "science", "culture", "business"] as const;

/** mulberry32: small, fast, seedable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  "ka",
  "lo",
  "mi",
  "ne",
  "ru",
  "sa",
  "ti",
  "vo",
  "ze",
  "da",
  "fi",
  "go",
  "ha",
  "ju",
  "pe",
  "qua",
  "ri",
  "so",
  "tu",
  "wa",
  "xe",
  "yo",
  "bri",
  "cla",
  "dro",
  "fle",
  "gri",
  "pla",
  "sto",
  "tre",
];

/** The vocabulary, most frequent word first; word i has probability proportional to 1/(i+1). */
export function vocabulary(size = 5000): string[] {
  const r = rng(7);
  const words = new Set<string>(["the", "of", "and", "to", "in", "is", "that", "for", "it", "with"]);
  while (words.size < size) {
    const n = 1 + Math.floor(r() * 3);
    let w = "";
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

/** Box-Muller: a standard normal draw from two uniform ones. */
function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

function unit(r: () => number, dimensions: number): Float64Array {
  const v = new Float64Array(dimensions);
  let norm = 0;
  for (let d = 0; d < dimensions; d++) {
    v[d] = gaussian(r);
    norm += v[d]! * v[d]!;
  }
  norm = Math.sqrt(norm);
  for (let d = 0; d < dimensions; d++) v[d]! /= norm;
  return v;
}

/**
 * Embeddings shaped like real sentence embeddings rather than uniform noise (on which nearest
 * neighbours mean nothing and no approximate index has recall): a direction shared by every vector
 * (embeddings are anisotropic), one of CLUSTERS topic centroids, a position inside the topic on a
 * few topic-specific directions (low intrinsic dimension: near neighbours exist), and a little
 * isotropic noise. Cosine similarity: ~0.15 between topics, ~0.55 inside a topic, up to ~0.95 for
 * the nearest neighbours. Normalised, rounded to 6 decimals.
 */
export class VectorSpace {
  static readonly CLUSTERS = 300;
  static readonly LATENT = 8;
  private readonly shared: Float64Array;
  private readonly centroids: Float64Array[];
  private readonly axes: Float64Array[][];
  /** Shared direction + centroid, per topic. */
  private readonly base: Float64Array[];
  private readonly seed: number;
  private readonly dimensions: number;

  constructor(seed: number, dimensions = VECTOR_DIMENSIONS) {
    this.seed = seed;
    this.dimensions = dimensions;
    const r = rng(seed * 7_919 + 11);
    this.shared = unit(r, dimensions);
    this.centroids = Array.from({ length: VectorSpace.CLUSTERS }, () => unit(r, dimensions));
    this.axes = this.centroids.map(() => Array.from({ length: VectorSpace.LATENT }, () => unit(r, dimensions)));
    this.base = this.centroids.map((centroid) => centroid.map((x, d) => 0.45 * this.shared[d]! + x));
  }

  /** Record i's vector; `noise` gives the isotropic part (uniform draws in [0, 1), one per dimension). */
  vector(i: number, noise: () => number): number[] {
    const r = rng(this.seed * 1_000_033 + i + 0x5bd1e995);
    const c = Math.floor(r() * VectorSpace.CLUSTERS);
    const v = this.base[c]!.slice();
    const axes = this.axes[c]!;
    for (let j = 0; j < axes.length; j++) {
      const axis = axes[j]!;
      const z = 0.3 * gaussian(r);
      for (let d = 0; d < this.dimensions; d++) v[d]! += z * axis[d]!;
    }
    let norm = 0;
    for (let d = 0; d < this.dimensions; d++) {
      v[d]! += 0.02 * (noise() * 2 - 1);
      norm += v[d]! * v[d]!;
    }
    norm = Math.sqrt(norm);
    const out = new Array<number>(this.dimensions);
    for (let d = 0; d < this.dimensions; d++) out[d] = Math.round((v[d]! / norm) * 1e6) / 1e6;
    return out;
  }
}

export interface GeneratedRecord {
  external_id: string;
  fields: { text: string; summary: string };
  metadata: { source: string; length: number; quality: number };
  vectors: { embedding: number[] };
  suggestions: { sentiment: { value: string; score: number }; topics: { value: string[]; score: number[] } };
}

export class DatasetGenerator {
  readonly words = vocabulary();
  private readonly cumulative: Float64Array;

  private readonly seed: number;
  private readonly space: VectorSpace;

  constructor(seed = 42) {
    this.seed = seed;
    this.space = new VectorSpace(seed);
    this.cumulative = new Float64Array(this.words.length);
    let sum = 0;
    for (let i = 0; i < this.words.length; i++) {
      sum += 1 / (i + 1);
      this.cumulative[i] = sum;
    }
    for (let i = 0; i < this.words.length; i++) this.cumulative[i]! /= sum;
  }

  /** The word at a frequency rank (0 = most frequent): used to build text queries of known selectivity. */
  wordAt(rank: number): string {
    return this.words[rank]!;
  }

  private word(r: () => number): string {
    const x = r();
    let lo = 0,
      hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo]!;
  }

  private sentence(r: () => number, count: number): string {
    const out: string[] = [];
    let sinceStop = 0;
    for (let i = 0; i < count; i++) {
      let w = this.word(r);
      if (sinceStop === 0) w = w[0]!.toUpperCase() + w.slice(1);
      sinceStop++;
      if (sinceStop > 8 && r() < 0.15) {
        w += ".";
        sinceStop = 0;
      }
      out.push(w);
    }
    return out.join(" ") + ".";
  }

  /**
   * Record i's vector alone (as in `record(i)`), without generating its texts: for exact nearest
   * neighbours in the bench process. The isotropic noise takes the record stream's draws that the
   * uniform vectors of earlier versions took, so every other field stays as it was.
   */
  embedding(i: number): number[] {
    const r = rng(this.seed * 1_000_003 + i);
    r(); // the length
    return this.space.vector(i, r);
  }

  /** Record i is always the same for a given seed. */
  record(i: number): GeneratedRecord {
    const r = rng(this.seed * 1_000_003 + i);
    const length = 50 + Math.floor(r() * 451);
    const embedding = this.space.vector(i, r);
    const topicCount = 1 + Math.floor(r() * 2);
    const topics = [...new Set(Array.from({ length: topicCount }, () => TOPICS[Math.floor(r() * TOPICS.length)]!))];
    return {
      external_id: `bench-${i}`,
      fields: { text: this.sentence(r, length), summary: this.sentence(r, 50 + Math.floor(r() * 31)) },
      metadata: { source: SOURCES[Math.floor(r() * SOURCES.length)]!, length, quality: Math.round(r() * 1e4) / 1e4 },
      vectors: { embedding },
      suggestions: {
        sentiment: { value: SENTIMENTS[Math.floor(r() * SENTIMENTS.length)]!, score: Math.round(r() * 100) / 100 },
        topics: { value: topics, score: topics.map(() => Math.round(r() * 100) / 100) },
      },
    };
  }
}
