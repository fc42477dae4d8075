/**
 * A deterministic, realistic dataset: two text fields (50–500 and 50–80 words drawn from a Zipf
 * vocabulary, so that word frequencies and full-text hit counts look like natural text), three
 * metadata properties (terms, integer, float), one 384-dimension vector and model suggestions for
 * two questions (label and multi-label) with score and agent.
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

const SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "da", "fi", "go", "ha", "ju", "pe", "qua", "ri", "so", "tu", "wa", "xe", "yo", "bri", "cla", "dro", "fle", "gri", "pla", "sto", "tre"];

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

  constructor(seed = 42) {
    this.seed = seed;
    this.cumulative = new Float64Array(this.words.length);
    let sum = 0;
    for (let i = 0; i < this.words.length; i++) { sum += 1 / (i + 1); this.cumulative[i] = sum; }
    for (let i = 0; i < this.words.length; i++) this.cumulative[i]! /= sum;
  }

  /** The word at a frequency rank (0 = most frequent): used to build text queries of known selectivity. */
  wordAt(rank: number): string { return this.words[rank]!; }

  private word(r: () => number): string {
    const x = r();
    let lo = 0, hi = this.cumulative.length - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (this.cumulative[mid]! < x) lo = mid + 1; else hi = mid; }
    return this.words[lo]!;
  }

  private sentence(r: () => number, count: number): string {
    const out: string[] = [];
    let sinceStop = 0;
    for (let i = 0; i < count; i++) {
      let w = this.word(r);
      if (sinceStop === 0) w = w[0]!.toUpperCase() + w.slice(1);
      sinceStop++;
      if (sinceStop > 8 && r() < 0.15) { w += "."; sinceStop = 0; }
      out.push(w);
    }
    return out.join(" ") + ".";
  }

  /** Record i is always the same for a given seed. */
  record(i: number): GeneratedRecord {
    const r = rng(this.seed * 1_000_003 + i);
    const length = 50 + Math.floor(r() * 451);
    const embedding = new Array<number>(VECTOR_DIMENSIONS);
    for (let d = 0; d < VECTOR_DIMENSIONS; d++) embedding[d] = Math.round((r() * 2 - 1) * 1e6) / 1e6;
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
