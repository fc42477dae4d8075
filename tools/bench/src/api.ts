import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { Agent, request as httpRequest } from "node:http";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { BodyReply, BodyRequest } from "./body-messages.ts";
import { PENDING_FILTERS } from "./page-filters.ts";
import { upsertItem, type BenchDataset } from "./wire.ts";

export { upsertItem, type BenchDataset };
import { DatasetGenerator, SENTIMENTS, SOURCES, TOPICS, VECTOR_DIMENSIONS } from "./data.ts";

/** A minimal JSON client authenticated the way the SDK is (X-Argilla-Api-Key). */
export class Api {
  readonly baseUrl: string;
  readonly apiKey: string;
  constructor(baseUrl: string, apiKey: string) {
    this.baseUrl = baseUrl;
    this.apiKey = apiKey;
  }

  async raw(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.baseUrl}/api/v1${path}`, {
      method,
      headers: { "X-Argilla-Api-Key": this.apiKey, ...(body !== undefined ? { "Content-Type": "application/json" } : {}) },
      body:
        body === undefined
          ? undefined
          : typeof body === "string"
            ? body
            : body instanceof Uint8Array
              ? (body as Uint8Array<ArrayBuffer>)
              : JSON.stringify(body),
    });
  }

  /**
   * One request through node:http with a kept-alive connection, the body read whole: the import's
   * sender. fetch's streams cost the bench more CPU per request, taken from the cores the server
   * runs on: consecutive 100K imports measured 4,870 records/s with fetch, 5,914 with this.
   */
  async send(method: string, path: string, body: Buffer | string): Promise<{ status: number; bytes: Buffer }> {
    const url = new URL(`${this.baseUrl}/api/v1${path}`);
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method,
          agent: this.agent,
          headers: { "X-Argilla-Api-Key": this.apiKey, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });

  async json<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, body);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  /** The server's own memory figures (GET /api/v1/status): V8 heap of the request thread, the search structures' bytes; null when unavailable. */
  async serverMemory(): Promise<ServerMemory | null> {
    try {
      return (await this.json<{ memory?: ServerMemory }>("GET", "/status")).memory ?? null;
    } catch {
      return null;
    }
  }
}

export interface ServerMemory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  search?: Record<string, number>;
}

/** Creates a workspace and a published dataset with the benchmark's settings (the SDK's call sequence, 5.4). */
export async function createDataset(api: Api, name: string): Promise<BenchDataset> {
  const ws = await api.json<{ id: string }>("POST", "/workspaces", { name: `${name}-ws` });
  const ds = await api.json<{ id: string }>("POST", "/datasets", { name, workspace_id: ws.id });
  const id = ds.id;
  await api.json("PATCH", `/datasets/${id}`, {
    guidelines: "Classify the sentiment and the topics of the text.",
    allow_extra_metadata: false,
    distribution: { strategy: "overlap", min_submitted: 1 },
  });
  await api.json("POST", `/datasets/${id}/fields`, {
    name: "text",
    title: "Text",
    required: true,
    settings: { type: "text", use_markdown: false },
  });
  await api.json("POST", `/datasets/${id}/fields`, {
    name: "summary",
    title: "Summary",
    required: false,
    settings: { type: "text", use_markdown: false },
  });
  const sentiment = await api.json<{ id: string }>("POST", `/datasets/${id}/questions`, {
    name: "sentiment",
    title: "Sentiment",
    required: true,
    settings: { type: "label_selection", options: SENTIMENTS.map((v) => ({ value: v, text: v[0]!.toUpperCase() + v.slice(1) })) },
  });
  const topics = await api.json<{ id: string }>("POST", `/datasets/${id}/questions`, {
    name: "topics",
    title: "Topics",
    required: false,
    settings: { type: "multi_label_selection", options: TOPICS.map((v) => ({ value: v, text: v })) },
  });
  await api.json("POST", `/datasets/${id}/vectors-settings`, { name: "embedding", title: "Embedding", dimensions: VECTOR_DIMENSIONS });
  await api.json("POST", `/datasets/${id}/metadata-properties`, {
    name: "source",
    title: "Source",
    settings: { type: "terms", values: [...SOURCES] },
    visible_for_annotators: true,
  });
  await api.json("POST", `/datasets/${id}/metadata-properties`, {
    name: "length",
    title: "Length",
    settings: { type: "integer", min: 0, max: 1000 },
    visible_for_annotators: true,
  });
  await api.json("POST", `/datasets/${id}/metadata-properties`, {
    name: "quality",
    title: "Quality",
    settings: { type: "float", min: 0, max: 1 },
    visible_for_annotators: true,
  });
  await api.json("PUT", `/datasets/${id}/publish`);
  return { workspaceId: ws.id, datasetId: id, questionIds: { sentiment: sentiment.id, topics: topics.id } };
}

/** The owner of a kept data directory (its API key was printed by an earlier run): signs in with the bench's password and rotates its API key. */
export async function signInOwner(baseUrl: string, password: string): Promise<Api> {
  const token = await fetch(`${baseUrl}/api/v1/token`, { method: "POST", body: new URLSearchParams({ username: "owner", password }) });
  if (!token.ok) throw new Error(`owner sign-in: ${token.status} ${await token.text()}`);
  const bearer = ((await token.json()) as { access_token: string }).access_token;
  const auth = { Authorization: `Bearer ${bearer}` };
  const me = (await (await fetch(`${baseUrl}/api/v1/me`, { headers: auth })).json()) as { id: string };
  // Keys are stored as digests and shown once: the owner's is rotated to get one.
  const rotated = await fetch(`${baseUrl}/api/v1/users/${me.id}/api-key`, { method: "POST", headers: auth });
  if (!rotated.ok) throw new Error(`owner API key: ${rotated.status} ${await rotated.text()}`);
  return new Api(baseUrl, ((await rotated.json()) as { api_key: string }).api_key);
}

/** The dataset an earlier run created in a kept data directory (`--data-dir`). */
export async function keptDataset(api: Api, name: string): Promise<BenchDataset> {
  const ds = (await api.json<{ items: { id: string; name: string; workspace_id: string }[] }>("GET", "/me/datasets")).items.find(
    (d) => d.name === name,
  );
  if (!ds) throw new Error(`no dataset "${name}" in the kept data directory`);
  const questions = (await api.json<{ items: { id: string; name: string }[] }>("GET", `/datasets/${ds.id}/questions`)).items;
  const id = (q: string) => questions.find((x) => x.name === q)?.id ?? "";
  return { workspaceId: ds.workspace_id, datasetId: ds.id, questionIds: { sentiment: id("sentiment"), topics: id("topics") } };
}

export interface ImportResult {
  records: number;
  seconds: number;
  clientCpuMs: number;
  recordsPerSecond: number;
  batchP50Ms: number;
  batchP95Ms: number;
  recordIds: string[];
  bodies: "prebuilt" | "live";
  prebuildSeconds?: number;
}

/** A pool of body workers (body-worker.ts) answering by `from` (one listener per worker, not per call). */
class BodyWorkers {
  private readonly workers = [0, 1].map(() => new Worker(new URL("./body-worker.ts", import.meta.url)));
  private readonly waiting = new Map<string, { resolve: (r: BodyReply) => void; reject: (e: unknown) => void }>();
  constructor() {
    for (const worker of this.workers) {
      worker.on("message", (reply: BodyReply) => {
        const key = `${reply.kind}:${reply.from}`;
        this.waiting.get(key)?.resolve(reply);
        this.waiting.delete(key);
      });
      worker.on("error", (error) => {
        for (const w of this.waiting.values()) w.reject(error);
        this.waiting.clear();
      });
    }
  }
  ask<K extends BodyReply["kind"]>(
    request: BodyRequest & { kind: K },
    batchIndex: number,
    transfer: ArrayBuffer[] = [],
  ): Promise<Extract<BodyReply, { kind: K }>> {
    const reply = new Promise<BodyReply>((resolve, reject) => {
      this.waiting.set(`${request.kind}:${request.from}`, { resolve, reject });
    });
    this.workers[batchIndex % this.workers.length]!.postMessage(request, transfer);
    return reply as Promise<Extract<BodyReply, { kind: K }>>;
  }
  close(): Promise<unknown> {
    return Promise.all(this.workers.map((w) => w.terminate()));
  }
}

export interface ImportOptions {
  /**
   * Build every body before the clock starts, into a temporary file read back during the import
   * (default): the measure is then the server's, as with an SDK client on another machine. With
   * false, the workers build the bodies while the import runs, on the cores the server uses too.
   */
  prebuilt?: boolean;
  /** Where the prebuilt bodies go (a file, deleted at the end). */
  tmpDir?: string;
  onProgress?: (done: number) => void;
}

/**
 * Imports `count` records in batches like the SDK (sequential PUT .../records/bulk: one request at a
 * time). The bodies come from two worker threads (body-worker.ts, the default-seeded generator,
 * checked against `gen`); the responses are parsed there too, while the next request runs, so that
 * the bench's main thread only sends and receives.
 */
export async function importRecords(
  api: Api,
  ds: BenchDataset,
  gen: DatasetGenerator,
  count: number,
  batchSize: number,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const prebuilt = options.prebuilt ?? true;
  const batches = Math.ceil(count / batchSize);
  const recordIds: string[][] = [];
  const batchTimes: number[] = [];
  const workers = new BodyWorkers();
  const dir = prebuilt ? mkdtempSync(join(options.tmpDir ?? tmpdir(), "tessera-bench-bodies-")) : null;
  const build = (b: number) =>
    workers.ask(
      {
        kind: "build",
        ds,
        from: b * batchSize,
        count: Math.min(batchSize, count - b * batchSize),
        ...(dir ? { file: join(dir, `bodies-${b % 2}`) } : {}),
      },
      b,
    );
  const checkFirst = (reply: { firstText: string }) => {
    if (reply.firstText !== gen.record(0).fields.text) throw new Error("the body workers' generator differs from the bench's");
  };
  const fds = new Map<string, number>();
  try {
    let prebuildSeconds: number | undefined;
    let located: Array<{ file: string; offset: number; length: number }> = [];
    if (prebuilt) {
      const t = performance.now();
      // Four bodies in flight per worker; each worker appends to its own file in request order.
      const replies: Array<Promise<Extract<BodyReply, { kind: "build" }>>> = [];
      for (let b = 0; b < batches; b++) {
        if (b >= 8) await replies[b - 8];
        replies.push(build(b));
      }
      const built = await Promise.all(replies);
      checkFirst(built[0]!);
      located = built.map((r) => ({ file: r.file!, offset: r.offset!, length: r.length! }));
      prebuildSeconds = Math.round((performance.now() - t) / 10) / 100;
    }
    const bodyOf = async (b: number, ahead: Map<number, Promise<Extract<BodyReply, { kind: "build" }>>>): Promise<string | Buffer> => {
      if (prebuilt) {
        const { file, offset, length } = located[b]!;
        let fd = fds.get(file);
        if (fd === undefined) {
          fd = openSync(file, "r");
          fds.set(file, fd);
        }
        const buffer = Buffer.allocUnsafe(length);
        readSync(fd, buffer, 0, length, offset);
        return buffer;
      }
      // Up to four bodies built ahead of the request in flight.
      for (let k = b; k < Math.min(batches, b + 4); k++) if (!ahead.has(k)) ahead.set(k, build(k));
      const reply = await ahead.get(b)!;
      ahead.delete(b);
      if (b === 0) checkFirst(reply);
      return reply.body!;
    };
    const ahead = new Map<number, Promise<Extract<BodyReply, { kind: "build" }>>>();
    const parsed: Array<Promise<void>> = [];
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let b = 0; b < batches; b++) {
      const body = await bodyOf(b, ahead);
      const started = performance.now();
      const res = await api.send("PUT", `/datasets/${ds.datasetId}/records/bulk`, body);
      batchTimes.push(performance.now() - started);
      if (res.status !== 200) throw new Error(`bulk upsert at ${b * batchSize}: ${res.status} ${res.bytes.toString("utf8").slice(0, 500)}`);
      const bytes = res.bytes.buffer.slice(res.bytes.byteOffset, res.bytes.byteOffset + res.bytes.byteLength) as ArrayBuffer;
      parsed.push(
        workers.ask({ kind: "parse", from: b * batchSize, bytes }, b, [bytes]).then((r) => {
          recordIds[b] = r.ids;
        }),
      );
      options.onProgress?.(Math.min(count, (b + 1) * batchSize));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    await Promise.all(parsed);
    batchTimes.sort((a, b) => a - b);
    const pick = (p: number) => Math.round(batchTimes[Math.min(batchTimes.length - 1, Math.floor(p * batchTimes.length))] ?? 0);
    return {
      records: count,
      seconds: Math.round(seconds * 100) / 100,
      clientCpuMs: Math.round((cpu.user + cpu.system) / 1000),
      recordsPerSecond: Math.round(count / seconds),
      batchP50Ms: pick(0.5),
      batchP95Ms: pick(0.95),
      recordIds: recordIds.flat(),
      bodies: prebuilt ? "prebuilt" : "live",
      ...(prebuildSeconds !== undefined ? { prebuildSeconds } : {}),
    };
  } finally {
    for (const fd of fds.values()) closeSync(fd);
    if (dir) rmSync(dir, { recursive: true, force: true });
    await workers.close();
  }
}

export interface Annotator {
  username: string;
  password: string;
  apiKey: string;
  id: string;
  api: Api;
}

/** Annotator accounts in the dataset's workspace, one per concurrent client. */
export async function createAnnotators(owner: Api, workspaceId: string, count: number, prefix = "annotator"): Promise<Annotator[]> {
  const out: Annotator[] = [];
  for (let i = 0; i < count; i++) {
    const username = `${prefix}-${i}`;
    const password = `bench-password-${i}`;
    const user = await owner.json<{ id: string; api_key: string }>("POST", "/users", {
      username,
      password,
      first_name: username,
      role: "annotator",
    });
    await owner.json("POST", `/workspaces/${workspaceId}/users`, { user_id: user.id });
    out.push({ username, password, apiKey: user.api_key, id: user.id, api: new Api(owner.baseUrl, user.api_key) });
  }
  return out;
}

/** The first `max` record ids of a dataset in insertion order, paged through the API (a kept PostgreSQL dataset: no file to read them from). */
/** The first `max` records pending in `api`'s user's queue (the annotation page's pending filters), in queue order. */
export async function pendingRecordIds(api: Api, datasetId: string, max: number): Promise<string[]> {
  const ids: string[] = [];
  while (ids.length < max) {
    const path = `/me/datasets/${datasetId}/records/search?limit=500&offset=${ids.length}`;
    const page = (await api.json<{ items: { record: { id: string } }[] }>("POST", path, { filters: PENDING_FILTERS })).items;
    ids.push(...page.map((r) => r.record.id));
    if (page.length < 500) break;
  }
  return ids.slice(0, max);
}

export async function listRecordIds(api: Api, datasetId: string, max: number): Promise<string[]> {
  const ids: string[] = [];
  while (ids.length < max) {
    const page = (await api.json<{ items: { id: string }[] }>("GET", `/datasets/${datasetId}/records?limit=1000&offset=${ids.length}`))
      .items;
    ids.push(...page.map((r) => r.id));
    if (page.length < 1000) break;
  }
  return ids.slice(0, max);
}
