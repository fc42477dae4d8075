import type { Annotator, BenchDataset } from "./api.ts";
import { coldPhrases, coldPrefixes } from "./cold-queries.ts";
import type { DatasetGenerator } from "./data.ts";
import { PENDING_FILTERS, SUBMITTED_FILTERS } from "./page-filters.ts";
import { summarize, type Summary } from "./stats.ts";

const UI_QUERY = "include=responses&include=suggestions&offset=0";

/** The Submitted view's new-word search right after one of the caller's answers changed (issue 31). */
export const SUBMITTED_AFTER_CHANGE = "text search, new word + submitted, after an own change (cold)";

export interface Scenario {
  name: string;
  /** Records each request answers (submits take them from the pool). */
  recordsPerRequest: number;
  /** Untimed work before each call (warm-ups included), e.g. a change the timed call then meets. */
  before?(client: Annotator, i: number): Promise<void>;
  run(client: Annotator, i: number): Promise<void>;
}

export class RecordPool {
  private next = 0;
  private readonly ids: readonly string[];
  constructor(ids: readonly string[]) {
    this.ids = ids;
  }
  get remaining(): number {
    return this.ids.length - this.next;
  }
  take(n: number): string[] {
    if (this.next + n > this.ids.length) throw new Error("the record pool is exhausted");
    const out = this.ids.slice(this.next, this.next + n);
    this.next += n;
    return out;
  }
}

async function expectOk(res: Response, what: string): Promise<string> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return text;
}

/** The calls of the brief (and the metrics call the web app makes after each Submit), each shaped as the annotation page (or the SDK) sends it. */
export function scenarios(ds: BenchDataset, gen: DatasetGenerator, pool: RecordPool, sampleIds: readonly string[]): Scenario[] {
  const id = ds.datasetId;
  const search = (c: Annotator, body: unknown, limit: number) =>
    c.api.raw("POST", `/me/datasets/${id}/records/search?${UI_QUERY}&limit=${limit}`, body).then((r) => expectOk(r, "search"));
  // Text queries from frequent to rare words (about 80% down to 2% of records match).
  const ranks = [20, 60, 200, 600, 2000];
  const words = ranks.map((rank) => gen.wordAt(rank));
  // The cold scenario: a word never asked before on every call (the server keeps the FTS part of a
  // repeated query), cycling through the same frequency bands: the nearest unused ranks around each
  // band's rank (+1, -1, +2, -2, ...), never the words above. Shared by all concurrency levels.
  const usedRanks = new Set(ranks);
  const bandStep = ranks.map(() => 0);
  let coldCalls = 0;
  const coldWord = () => {
    const band = coldCalls++ % ranks.length;
    for (;;) {
      const step = ++bandStep[band]!;
      const rank = ranks[band]! + (step % 2 === 1 ? (step + 1) / 2 : -step / 2);
      if (rank < 0 || rank >= gen.words.length || usedRanks.has(rank)) continue;
      usedRanks.add(rank);
      return gen.wordAt(rank);
    }
  };
  // The same for several words (all required) and for a prefix (`word*`): each call new (cold-queries.ts).
  const coldPhrase = coldPhrases((rank) => gen.wordAt(rank), gen.words.length);
  // The Submitted view's phrases: the same bands, the words reversed (never the queue row's phrases, nor taking them).
  const coldSubmittedPhrase = coldPhrases((rank) => gen.wordAt(rank), gen.words.length, undefined, true);
  const coldPrefix = coldPrefixes((rank) => gen.wordAt(rank), gen.words.length);
  /** The annotation page's queue with two metadata filters (a source, a quality range: ~10% of the records pass). */
  const metadataFilters = (i: number) => ({
    and: [
      ...PENDING_FILTERS.and,
      {
        type: "terms",
        scope: { entity: "metadata", metadata_property: "source" },
        values: [["news", "forum", "reviews", "support", "wiki"][Math.abs(i) % 5]],
      },
      { type: "range", scope: { entity: "metadata", metadata_property: "quality" }, ge: 0.25, le: 0.75 },
    ],
  });
  /** Per client: some of its submitted records (read once) and the one the last own change made a draft. */
  const changes = new Map<string, Promise<{ ids: string[]; next: number; drafted: string | null }>>();
  const ownChanges = (c: Annotator) => {
    let state = changes.get(c.username);
    if (!state) {
      state = search(c, { filters: SUBMITTED_FILTERS }, 50).then((text) => {
        const ids = (JSON.parse(text) as { items: Array<{ record: { id: string } }> }).items.map((x) => x.record.id);
        if (ids.length === 0) throw new Error(`${SUBMITTED_AFTER_CHANGE}: the annotator has no Submits (--answered)`);
        return { ids, next: 0, drafted: null };
      });
      changes.set(c.username, state);
    }
    return state;
  };
  const values = (i: number) => ({
    sentiment: { value: ["positive", "negative", "neutral"][Math.abs(i) % 3] },
    topics: { value: ["science"] },
  });
  return [
    {
      name: "next page of pending (10)",
      recordsPerRequest: 0,
      run: async (c) => {
        await search(c, { filters: PENDING_FILTERS }, 10);
      },
    },
    {
      name: "submit a response",
      recordsPerRequest: 1,
      run: async (c, i) => {
        const [recordId] = pool.take(1);
        await expectOk(await c.api.raw("POST", `/records/${recordId}/responses`, { status: "submitted", values: values(i) }), "submit");
      },
    },
    {
      name: "bulk submit of 10",
      recordsPerRequest: 10,
      run: async (c, i) => {
        const items = pool.take(10).map((recordId) => ({ record_id: recordId, status: "submitted", values: values(i) }));
        const text = await expectOk(await c.api.raw("POST", "/me/responses/bulk", { items }), "bulk submit");
        const failed = (JSON.parse(text) as { items: Array<{ error: unknown }> }).items.filter((x) => x.error);
        if (failed.length) throw new Error(`bulk submit: ${failed.length} items failed: ${JSON.stringify(failed[0])}`);
      },
    },
    {
      name: "text search (pending, 10)",
      recordsPerRequest: 0,
      run: async (c, i) => {
        await search(c, { query: { text: { q: words[Math.abs(i) % words.length] } }, filters: PENDING_FILTERS }, 10);
      },
    },
    {
      name: "text search, new word each call (cold)",
      recordsPerRequest: 0,
      run: async (c) => {
        await search(c, { query: { text: { q: coldWord() } }, filters: PENDING_FILTERS }, 10);
      },
    },
    {
      // The same with the annotation page's metadata filters (the "metadata filter + count" row's: ~10% of the records pass).
      name: "text search, new word + metadata filter (cold)",
      recordsPerRequest: 0,
      run: async (c, i) => {
        await search(c, { query: { text: { q: coldWord() } }, filters: metadataFilters(i) }, 10);
      },
    },
    {
      // The annotation page's Submitted view: the caller's submitted records only (few: a small share of the dataset).
      name: "text search, new word + submitted (cold)",
      recordsPerRequest: 0,
      run: async (c) => {
        await search(
          c,
          {
            query: { text: { q: coldWord() } },
            filters: SUBMITTED_FILTERS,
          },
          10,
        );
      },
    },
    {
      // The same right after the caller changed one of its answers (untimed before each call: one of its Submits made a
      // draft, the next call submitted again, in turn): the server's kept answered records of the caller are then older
      // than the caller's answers (an annotator correcting a record in the Submitted view, then searching again).
      name: SUBMITTED_AFTER_CHANGE,
      recordsPerRequest: 0,
      before: async (c) => {
        const state = await ownChanges(c);
        const drafted = state.drafted;
        const recordId = drafted ?? state.ids[state.next++ % state.ids.length]!;
        state.drafted = drafted ? null : recordId;
        const items = [{ record_id: recordId, status: drafted ? "submitted" : "draft", values: values(0) }];
        const text = await expectOk(await c.api.raw("POST", "/me/responses/bulk", { items }), "own change");
        const failed = (JSON.parse(text) as { items: Array<{ error: unknown }> }).items.filter((x) => x.error);
        if (failed.length) throw new Error(`own change: ${JSON.stringify(failed[0])}`);
      },
      run: async (c) => {
        await search(c, { query: { text: { q: coldWord() } }, filters: SUBMITTED_FILTERS }, 10);
      },
    },
    {
      // The same view with a phrase (two or three words) never asked before.
      name: "text search, new phrase + submitted (cold)",
      recordsPerRequest: 0,
      run: async (c) => {
        await search(c, { query: { text: { q: coldSubmittedPhrase() } }, filters: SUBMITTED_FILTERS }, 10);
      },
    },
    {
      // The Submitted view without text: the caller's submitted records in record order, with their total.
      name: "submitted list (no text)",
      recordsPerRequest: 0,
      run: async (c) => {
        const text = await search(c, { filters: SUBMITTED_FILTERS }, 10);
        if (typeof (JSON.parse(text) as { total?: unknown }).total !== "number") throw new Error("no total");
      },
    },
    {
      name: "text search, new phrase each call (cold)",
      recordsPerRequest: 0,
      run: async (c) => {
        await search(c, { query: { text: { q: coldPhrase() } }, filters: PENDING_FILTERS }, 10);
      },
    },
    {
      name: "text search, new prefix each call (cold)",
      recordsPerRequest: 0,
      run: async (c) => {
        await search(c, { query: { text: { q: coldPrefix() } }, filters: PENDING_FILTERS }, 10);
      },
    },
    {
      name: "metadata filter + count",
      recordsPerRequest: 0,
      run: async (c, i) => {
        const text = await search(c, { filters: metadataFilters(i) }, 10);
        if (typeof (JSON.parse(text) as { total?: unknown }).total !== "number") throw new Error("no total");
      },
    },
    {
      name: "similarity top-50",
      recordsPerRequest: 0,
      run: async (c, i) => {
        await search(
          c,
          {
            query: { vector: { name: "embedding", record_id: sampleIds[Math.abs(i * 7919) % sampleIds.length], order: "most_similar" } },
            filters: PENDING_FILTERS,
          },
          50,
        );
      },
    },
    {
      // The far side (the web app's "least similar"): scored differently by the codes (sqlite-knn.ts).
      name: "similarity top-50, least similar",
      recordsPerRequest: 0,
      run: async (c, i) => {
        await search(
          c,
          {
            query: { vector: { name: "embedding", record_id: sampleIds[Math.abs(i * 7919) % sampleIds.length], order: "least_similar" } },
            filters: PENDING_FILTERS,
          },
          50,
        );
      },
    },
    {
      name: "dataset progress",
      recordsPerRequest: 0,
      run: async (c) => {
        await expectOk(await c.api.raw("GET", `/datasets/${id}/progress`), "progress");
      },
    },
    // The web app refreshes 'My progress' after every Submit.
    {
      name: "my progress (after each Submit)",
      recordsPerRequest: 0,
      run: async (c) => {
        await expectOk(await c.api.raw("GET", `/me/datasets/${id}/metrics`), "metrics");
      },
    },
  ];
}

export interface LoadOptions {
  concurrency: number;
  requests: number;
  maxSeconds: number;
  warmup: number;
  /**
   * An annotator's pause between two calls, ms (each pause uniform in 0.5-1.5x, the clients' starts
   * spread over one pause); 0: the next call leaves the moment the last returns (saturation).
   */
  thinkMs?: number;
}

/** Untimed calls before a load: `warmup`, and at least one per client. */
export function warmupCalls(options: Pick<LoadOptions, "concurrency" | "warmup">): number {
  return Math.max(options.warmup, options.concurrency);
}

/**
 * `requests` calls (or until `maxSeconds`) spread over `concurrency` clients, each an annotator of its
 * own, after `warmup` untimed calls spread over the clients so that each has made at least one, as
 * client 0's warm-up calls always were: with only client 0 warmed, 19 of the 200 samples at 20
 * clients were a client's first call (its new connection included), and the first scenario's p95
 * at 100K was 119 ms instead of 72 (which part is per-client cost and which is work left from the
 * import was not isolated).
 */
export async function runLoad(
  scenario: Scenario,
  clients: readonly Annotator[],
  options: LoadOptions,
): Promise<Summary & { firstError?: string }> {
  const client = (w: number) => clients[w % clients.length]!;
  for (let i = 0; i < warmupCalls(options); i++) {
    await scenario.before?.(client(i % options.concurrency), -1 - i);
    await scenario.run(client(i % options.concurrency), -1 - i);
  }
  const samples: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let next = 0;
  const deadline = performance.now() + options.maxSeconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, w) => {
      const think = options.thinkMs ?? 0;
      if (think > 0) await new Promise((r) => setTimeout(r, Math.random() * think));
      for (let first = true; ; first = false) {
        if (!first && think > 0) await new Promise((r) => setTimeout(r, think * (0.5 + Math.random())));
        const i = next++;
        if (i >= options.requests || performance.now() > deadline) return;
        try {
          await scenario.before?.(client(w), i);
          const t0 = performance.now();
          await scenario.run(client(w), i);
          samples.push(performance.now() - t0);
        } catch (error) {
          errors++;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  const summary = summarize(samples, errors, performance.now() - started);
  return firstError ? { ...summary, firstError } : summary;
}
