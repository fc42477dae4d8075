import { Worker } from "node:worker_threads";
import type { BodyReply, BodyRequest } from "./body-worker.ts";
import { DatasetGenerator, SENTIMENTS, SOURCES, TOPICS, VECTOR_DIMENSIONS, type GeneratedRecord } from "./data.ts";

/** A minimal JSON client authenticated the way the SDK is (X-Argilla-Api-Key). */
export class Api {
  readonly baseUrl: string;
  readonly apiKey: string;
  constructor(baseUrl: string, apiKey: string) { this.baseUrl = baseUrl; this.apiKey = apiKey; }

  async raw(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.baseUrl}/api/v1${path}`, {
      method,
      headers: { "X-Argilla-Api-Key": this.apiKey, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  async json<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, body);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : null) as T;
  }
}

export interface BenchDataset {
  workspaceId: string;
  datasetId: string;
  questionIds: { sentiment: string; topics: string };
}

/** Creates a workspace and a published dataset with the benchmark's settings (the SDK's call sequence, 5.4). */
export async function createDataset(api: Api, name: string): Promise<BenchDataset> {
  const ws = await api.json<{ id: string }>("POST", "/workspaces", { name: `${name}-ws` });
  const ds = await api.json<{ id: string }>("POST", "/datasets", { name, workspace_id: ws.id });
  const id = ds.id;
  await api.json("PATCH", `/datasets/${id}`, { guidelines: "Classify the sentiment and the topics of the text.", allow_extra_metadata: false, distribution: { strategy: "overlap", min_submitted: 1 } });
  await api.json("POST", `/datasets/${id}/fields`, { name: "text", title: "Text", required: true, settings: { type: "text", use_markdown: false } });
  await api.json("POST", `/datasets/${id}/fields`, { name: "summary", title: "Summary", required: false, settings: { type: "text", use_markdown: false } });
  const sentiment = await api.json<{ id: string }>("POST", `/datasets/${id}/questions`, {
    name: "sentiment", title: "Sentiment", required: true,
    settings: { type: "label_selection", options: SENTIMENTS.map((v) => ({ value: v, text: v[0]!.toUpperCase() + v.slice(1) })) },
  });
  const topics = await api.json<{ id: string }>("POST", `/datasets/${id}/questions`, {
    name: "topics", title: "Topics", required: false,
    settings: { type: "multi_label_selection", options: TOPICS.map((v) => ({ value: v, text: v })) },
  });
  await api.json("POST", `/datasets/${id}/vectors-settings`, { name: "embedding", title: "Embedding", dimensions: VECTOR_DIMENSIONS });
  await api.json("POST", `/datasets/${id}/metadata-properties`, { name: "source", title: "Source", settings: { type: "terms", values: [...SOURCES] }, visible_for_annotators: true });
  await api.json("POST", `/datasets/${id}/metadata-properties`, { name: "length", title: "Length", settings: { type: "integer", min: 0, max: 1000 }, visible_for_annotators: true });
  await api.json("POST", `/datasets/${id}/metadata-properties`, { name: "quality", title: "Quality", settings: { type: "float", min: 0, max: 1 }, visible_for_annotators: true });
  await api.json("PUT", `/datasets/${id}/publish`);
  return { workspaceId: ws.id, datasetId: id, questionIds: { sentiment: sentiment.id, topics: topics.id } };
}

/** One record as the SDK's records.log sends it in PUT .../records/bulk (contract 5.6). */
export function upsertItem(record: GeneratedRecord, ds: BenchDataset): unknown {
  return {
    id: null,
    external_id: record.external_id,
    fields: record.fields,
    metadata: record.metadata,
    vectors: record.vectors,
    responses: [],
    suggestions: [
      { question_id: ds.questionIds.sentiment, question_name: "sentiment", type: "model", value: record.suggestions.sentiment.value, score: record.suggestions.sentiment.score, agent: "bench-model-v1" },
      { question_id: ds.questionIds.topics, question_name: "topics", type: "model", value: record.suggestions.topics.value, score: record.suggestions.topics.score, agent: "bench-model-v1" },
    ],
  };
}

export interface ImportResult { records: number; seconds: number; recordsPerSecond: number; batchP50Ms: number; batchP95Ms: number; recordIds: string[] }

/**
 * Imports `count` records in batches like the SDK (sequential PUT .../records/bulk: one request at a
 * time). The bodies are built ahead by two worker threads (body-worker.ts, the default-seeded
 * generator, checked against `gen`), so the client's generation overlaps the server's work instead
 * of taking turns with it.
 */
export async function importRecords(api: Api, ds: BenchDataset, gen: DatasetGenerator, count: number, batchSize: number, onProgress?: (done: number) => void): Promise<ImportResult> {
  const recordIds: string[] = [];
  const batchTimes: number[] = [];
  const workers = [0, 1].map(() => new Worker(new URL("./body-worker.ts", import.meta.url)));
  const pending = new Map<number, Promise<BodyReply>>();
  // One listener per worker (not per batch: a listener per batch would keep every body reachable).
  const waiting = new Map<number, { resolve: (r: BodyReply) => void; reject: (e: unknown) => void }>();
  for (const worker of workers) {
    worker.on("message", (reply: BodyReply) => { waiting.get(reply.from)?.resolve(reply); waiting.delete(reply.from); });
    worker.on("error", (error) => { for (const w of waiting.values()) w.reject(error); waiting.clear(); });
  }
  let requested = 0;
  const ask = (from: number) => {
    pending.set(from, new Promise<BodyReply>((resolve, reject) => { waiting.set(from, { resolve, reject }); }));
    workers[(from / batchSize) % workers.length]!.postMessage({ ds, from, count: Math.min(batchSize, count - from) } satisfies BodyRequest);
  };
  // Up to four bodies ready ahead of the request in flight.
  const fill = () => { while (requested < count && pending.size < 4) { ask(requested); requested += batchSize; } };
  try {
    fill();
    const t0 = performance.now();
    for (let from = 0; from < count; from += batchSize) {
      const reply = await pending.get(from)!;
      pending.delete(from);
      fill();
      if (from === 0 && reply.firstText !== gen.record(0).fields.text) throw new Error("the body workers' generator differs from the bench's");
      const started = performance.now();
      const res = await api.raw("PUT", `/datasets/${ds.datasetId}/records/bulk`, reply.body);
      const text = await res.text();
      if (!res.ok) throw new Error(`bulk upsert at ${from}: ${res.status} ${text.slice(0, 500)}`);
      batchTimes.push(performance.now() - started);
      for (const item of (JSON.parse(text) as { items: Array<{ id: string }> }).items) recordIds.push(item.id);
      onProgress?.(Math.min(count, from + batchSize));
    }
    const seconds = (performance.now() - t0) / 1000;
    batchTimes.sort((a, b) => a - b);
    const pick = (p: number) => Math.round(batchTimes[Math.min(batchTimes.length - 1, Math.floor(p * batchTimes.length))] ?? 0);
    return { records: count, seconds: Math.round(seconds * 100) / 100, recordsPerSecond: Math.round(count / seconds), batchP50Ms: pick(0.5), batchP95Ms: pick(0.95), recordIds };
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

export interface Annotator { username: string; password: string; apiKey: string; id: string; api: Api }

/** Annotator accounts in the dataset's workspace, one per concurrent client. */
export async function createAnnotators(owner: Api, workspaceId: string, count: number, prefix = "annotator"): Promise<Annotator[]> {
  const out: Annotator[] = [];
  for (let i = 0; i < count; i++) {
    const username = `${prefix}-${i}`;
    const password = `bench-password-${i}`;
    const user = await owner.json<{ id: string; api_key: string }>("POST", "/users", { username, password, first_name: username, role: "annotator" });
    await owner.json("POST", `/workspaces/${workspaceId}/users`, { user_id: user.id });
    out.push({ username, password, apiKey: user.api_key, id: user.id, api: new Api(owner.baseUrl, user.api_key) });
  }
  return out;
}
