import type { Annotator, BenchDataset } from "./api.ts";
import type { DatasetGenerator } from "./data.ts";
import { PENDING_FILTERS } from "./page-filters.ts";

/**
 * Recall@k of the server's similarity search (approximate above a size on SQLite, HNSW on pgvector):
 * for a few sample records, the server's top k "most similar" (or "least similar") as a fresh annotator
 * (no responses, so the queue filters keep every record: run it before anyone submits) against the
 * exact top k computed here from the regenerated vectors (float32, as stored; the reference record excluded).
 */
export interface RecallResult {
  samples: number;
  k: number;
  /** Absent in reports of earlier versions: most_similar. */
  order?: "most_similar" | "least_similar";
  mean: number;
  min: number;
  /** Wall time of the first similarity request (on SQLite it loads the setting's codes). */
  firstQueryMs: number;
  /** The exact top k's last similarity minus the server's (least similar: the server's minus the exact), averaged: how much worse the misses are. */
  meanLastScoreGap: number;
  /** The exact top k's mean similarity minus the server's k (least similar: the server's minus the exact), averaged (absent in earlier reports). */
  meanScoreGap?: number;
}

export function exactTopK(
  vectors: Float32Array,
  dimensions: number,
  query: Float32Array,
  k: number,
  exclude: number,
): { index: number; score: number }[] {
  const n = vectors.length / dimensions;
  let qn = 0;
  for (let d = 0; d < dimensions; d++) qn += query[d]! * query[d]!;
  qn = Math.sqrt(qn);
  const top: { index: number; score: number }[] = [];
  for (let i = 0, o = 0; i < n; i++, o += dimensions) {
    if (i === exclude) continue;
    let dot = 0,
      vn = 0;
    for (let d = 0; d < dimensions; d++) {
      const x = vectors[o + d]!;
      dot += x * query[d]!;
      vn += x * x;
    }
    const score = dot / (Math.sqrt(vn) * qn);
    if (top.length < k || score > top[top.length - 1]!.score) {
      let at = top.length < k ? top.length : k - 1;
      while (at > 0 && top[at - 1]!.score < score) at--;
      top.splice(at, 0, { index: i, score });
      if (top.length > k) top.pop();
    }
  }
  return top;
}

/** The regenerated vectors of the last measurement (1.5 GB at 1M: generated once for both orders). */
let generated: { n: number; vectors: Float32Array } | undefined;

export async function measureRecall(
  client: Annotator,
  ds: BenchDataset,
  gen: DatasetGenerator,
  recordIds: readonly string[],
  samples: number,
  k = 50,
  order: "most_similar" | "least_similar" = "most_similar",
): Promise<RecallResult> {
  const n = recordIds.length;
  const picks = Array.from({ length: Math.min(samples, n) }, (_, j) => Math.floor(((j + 0.5) * n) / Math.min(samples, n)));
  const server: { ids: string[]; scores: number[] }[] = [];
  let firstQueryMs = 0;
  for (const [j, i] of picks.entries()) {
    const t0 = performance.now();
    const ask = () =>
      client.api.raw("POST", `/me/datasets/${ds.datasetId}/records/search?limit=${k}`, {
        query: { vector: { name: "embedding", record_id: recordIds[i], order } },
        filters: PENDING_FILTERS,
      });
    // Once more when the connection failed (a kept-alive socket the server closed while the vectors were generated).
    const res = await ask().catch(ask);
    const text = await res.text();
    if (!res.ok) throw new Error(`similarity: ${res.status} ${text.slice(0, 300)}`);
    if (j === 0) firstQueryMs = Math.round(performance.now() - t0);
    const items = (JSON.parse(text) as { items: Array<{ record: { id: string }; query_score: number | null }> }).items;
    server.push({ ids: items.map((x) => x.record.id), scores: items.map((x) => x.query_score ?? 0) });
  }
  const dimensions = gen.embedding(0).length;
  if (generated?.n !== n) {
    generated = { n, vectors: new Float32Array(n * dimensions) };
    for (let i = 0; i < n; i++) generated.vectors.set(gen.embedding(i), i * dimensions);
  }
  const { vectors } = generated;
  const recalls: number[] = [];
  const gaps: number[] = [];
  const meanGaps: number[] = [];
  for (const [j, i] of picks.entries()) {
    const sign = order === "most_similar" ? 1 : -1;
    // Least similar: the most similar to the negated vector (cosine(x, -q) = -cosine(x, q)).
    const probe = vectors.subarray(i * dimensions, (i + 1) * dimensions).map((x) => sign * x);
    const exact = exactTopK(vectors, dimensions, probe, k, i);
    const got = new Set(server[j]!.ids);
    recalls.push(exact.filter((e) => got.has(recordIds[e.index]!)).length / exact.length);
    const last = server[j]!.scores[server[j]!.scores.length - 1];
    if (last !== undefined) gaps.push(sign * (sign * exact[exact.length - 1]!.score - last));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
    if (last !== undefined) meanGaps.push(sign * (sign * mean(exact.map((e) => e.score)) - mean(server[j]!.scores)));
  }
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    samples: picks.length,
    k,
    order,
    mean: round(recalls.reduce((a, b) => a + b, 0) / Math.max(recalls.length, 1)),
    min: round(Math.min(...recalls)),
    firstQueryMs,
    meanLastScoreGap: Math.round((gaps.reduce((a, b) => a + b, 0) / Math.max(gaps.length, 1)) * 1e5) / 1e5,
    meanScoreGap: Math.round((meanGaps.reduce((a, b) => a + b, 0) / Math.max(meanGaps.length, 1)) * 1e5) / 1e5,
  };
}
