import type { Api, BenchDataset } from "./api.ts";
import type { DatasetGenerator } from "./data.ts";
import type { Scenario } from "./latency.ts";
import { PENDING_FILTERS } from "./page-filters.ts";

/** The name shared by the rows of this group: `--only probes` runs them (they run only when asked for). */
export const PROBES_GROUP = "probes";

/** What a probe asks for each call, given the call's index, a new word and a sample record id. */
export interface ProbeContext {
  datasetId: string;
  word: () => string;
  /** The generator's word of a frequency rank (the same each call). */
  wordAt: (rank: number) => string;
  recordId: (i: number) => string;
  metadataPropertyIds: Record<string, string>;
}
export interface ProbeCall {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** Only the first bytes are read (an export's time to first byte), the rest is dropped. */
  firstBytes?: boolean;
}
export interface Probe {
  name: string;
  /** The owner's key (admin pages, the SDK as the owner); else an annotator's. */
  admin?: boolean;
  call: (ctx: ProbeContext, i: number) => ProbeCall;
}

const pending = PENDING_FILTERS.and[0]!;
const metadata = [
  pending,
  { type: "terms", scope: { entity: "metadata", metadata_property: "source" }, values: ["news"] },
  { type: "range", scope: { entity: "metadata", metadata_property: "quality" }, ge: 0.25, le: 0.75 },
];
const UI = "include=responses&include=suggestions";
/** The official SDK's `dataset.records(...)` page (argilla 2.x: batch_size 256, offset paging, responses and suggestions). */
const sdkPage =
  (offset: number, extra = "") =>
  (ctx: ProbeContext) => ({
    method: "GET" as const,
    path: `/datasets/${ctx.datasetId}/records?offset=${offset}&limit=256&${UI}${extra}`,
  });
/** The SDK iterating: call i asks for the page after call i - 1's (the warm-up call, i = -1, is the iteration's first page). */
const sdkIterating = (from: number) => (ctx: ProbeContext, i: number) => sdkPage(Math.max(0, from + (i + 1) * 256))(ctx);
const similar = (order: "most_similar" | "least_similar", filters: unknown[], text?: "word") => (ctx: ProbeContext, i: number) => ({
  method: "POST" as const,
  path: `/me/datasets/${ctx.datasetId}/records/search?${UI}&offset=0&limit=10`,
  body: {
    query: {
      vector: { name: "embedding", record_id: ctx.recordId(i), order },
      ...(text ? { text: { q: ctx.word(), field: null } } : {}),
    },
    filters: filters.length > 0 ? { and: filters } : null,
  },
});

/**
 * The calls a tester or the official SDK makes at 1M records that the other rows do not measure (issues 25 and 31):
 * the SDK iterating a dataset (its offset pages, deep ones: an O(offset) page makes iterating 1M records O(n²)), a
 * record by id, the admin's list of every record with its total and a deep page of it, the dataset's pages of
 * counts (progress per user, review progress, agreement, metadata metrics, suggestion options, the home page's
 * cards), similarity with text and with filters, search by external id, and an export's first bytes.
 */
export const PROBES: Probe[] = [
  { name: "sdk: page of 256 at offset 0", admin: true, call: sdkPage(0) },
  { name: "sdk: page of 256 at offset 10K", admin: true, call: sdkPage(10_000) },
  { name: "sdk: page of 256 at offset 100K", admin: true, call: sdkPage(100_000) },
  { name: "sdk: page of 256 at offset 500K", admin: true, call: sdkPage(500_000) },
  { name: "sdk: page of 256 at offset 990K", admin: true, call: sdkPage(990_000) },
  { name: "sdk: iterating, next page of 256 from offset 0", admin: true, call: sdkIterating(0) },
  { name: "sdk: iterating, next page of 256 from offset 900K", admin: true, call: sdkIterating(900_000) },
  { name: "sdk: page of 256 + vectors at offset 100K", admin: true, call: sdkPage(100_000, "&include=vectors") },
  { name: "sdk: dataset exists (before every page)", admin: true, call: (ctx) => ({ method: "GET", path: `/datasets/${ctx.datasetId}` }) },
  {
    name: "sdk: search a word, page of 256 at offset 2,560",
    admin: true,
    call: (ctx) => ({
      method: "POST",
      path: `/datasets/${ctx.datasetId}/records/search?offset=2560&limit=256&${UI}`,
      body: { query: { text: { q: ctx.word(), field: null } } },
    }),
  },
  {
    // The SDK iterating a text query (`dataset.records(query=...)`): call i asks for the page after call i - 1's, one word
    // (rank 300) for every call, so that each page after the warm-up's may use what the previous pages ranked.
    name: "sdk: iterating a word, next page of 256 from offset 2,560",
    admin: true,
    call: (ctx, i) => ({
      method: "POST",
      path: `/datasets/${ctx.datasetId}/records/search?offset=${2560 + (i + 1) * 256}&limit=256&${UI}`,
      body: { query: { text: { q: ctx.wordAt(300), field: null } } },
    }),
  },
  { name: "record by id", call: (ctx, i) => ({ method: "GET", path: `/records/${ctx.recordId(i)}` }) },
  {
    name: "admin: every record, first page + total",
    admin: true,
    call: (ctx) => ({ method: "POST", path: `/datasets/${ctx.datasetId}/records/search?${UI}&offset=0&limit=10`, body: {} }),
  },
  {
    name: "admin: every record, page at offset 5,000",
    admin: true,
    call: (ctx) => ({ method: "POST", path: `/datasets/${ctx.datasetId}/records/search?${UI}&offset=5000&limit=10`, body: {} }),
  },
  {
    name: "admin: by external id",
    admin: true,
    call: (ctx, i) => ({
      method: "POST",
      path: `/datasets/${ctx.datasetId}/records/search?${UI}&offset=0&limit=10`,
      body: {
        filters: {
          and: [{ type: "terms", scope: { entity: "record", property: "external_id" }, values: [`bench-${(i * 7919) % 1_000_000}`] }],
        },
      },
    }),
  },
  { name: "admin: users' progress", admin: true, call: (ctx) => ({ method: "GET", path: `/datasets/${ctx.datasetId}/users/progress` }) },
  { name: "admin: review progress", admin: true, call: (ctx) => ({ method: "GET", path: `/datasets/${ctx.datasetId}/review/progress` }) },
  { name: "admin: agreement", admin: true, call: (ctx) => ({ method: "GET", path: `/datasets/${ctx.datasetId}/agreement` }) },
  {
    name: "admin: metadata metrics (terms)",
    admin: true,
    call: (ctx) => ({ method: "GET", path: `/metadata-properties/${ctx.metadataPropertyIds.source}/metrics` }),
  },
  {
    name: "admin: metadata metrics (integer)",
    admin: true,
    call: (ctx) => ({ method: "GET", path: `/metadata-properties/${ctx.metadataPropertyIds.length}/metrics` }),
  },
  { name: "home: dataset cards", call: () => ({ method: "GET", path: "/me/datasets" }) },
  {
    name: "suggestion options",
    call: (ctx) => ({ method: "GET", path: `/datasets/${ctx.datasetId}/records/search/suggestions/options` }),
  },
  { name: "most similar + pending + metadata", call: similar("most_similar", metadata) },
  { name: "least similar + pending + metadata", call: similar("least_similar", metadata) },
  { name: "most similar + a new word", call: similar("most_similar", [pending], "word") },
  { name: "least similar + a new word", call: similar("least_similar", [pending], "word") },
  {
    name: "admin: export jsonl of a filtered dataset, first bytes",
    admin: true,
    call: (ctx) => ({
      method: "POST",
      path: `/datasets/${ctx.datasetId}/records/export?format=jsonl`,
      body: { filters: { and: metadata.slice(1) } },
      firstBytes: true,
    }),
  },
];

/**
 * The probes as latency rows ("probes: ..."): one client, a word never searched before on each call that takes one
 * (ranks from 310 on in steps cycling through the frequency bands), the sample records in turn, the admin rows with
 * the owner's key. A call fails the row on a status other than 2xx.
 */
export function probeScenarios(ds: BenchDataset, gen: DatasetGenerator, owner: Api, sampleIds: readonly string[]): Scenario[] {
  let next = 0;
  const word = () => gen.wordAt(310 + ((next++ * 41) % Math.max(1, gen.words.length - 310)));
  let metadataPropertyIds: Record<string, string> | undefined;
  const context = async (): Promise<ProbeContext> => {
    metadataPropertyIds ??= Object.fromEntries(
      (await owner.json<{ items: { id: string; name: string }[] }>("GET", `/me/datasets/${ds.datasetId}/metadata-properties`)).items.map(
        (p) => [p.name, p.id],
      ),
    );
    return {
      datasetId: ds.datasetId,
      word,
      wordAt: (rank) => gen.wordAt(rank),
      recordId: (i) => sampleIds[Math.abs(i * 7919) % sampleIds.length]!,
      metadataPropertyIds,
    };
  };
  return PROBES.map((probe) => ({
    name: `${PROBES_GROUP}: ${probe.name}`,
    recordsPerRequest: 0,
    run: async (c, i) => {
      const call = probe.call(await context(), i);
      const res = await (probe.admin ? owner : c.api).raw(call.method, call.path, call.body);
      if (!res.ok) throw new Error(`${probe.name}: ${res.status} ${(await res.text()).slice(0, 300)}`);
      if (!call.firstBytes) {
        await res.arrayBuffer();
        return;
      }
      const reader = res.body!.getReader();
      const first = await reader.read();
      await reader.cancel();
      if (first.done || first.value.length === 0) throw new Error(`${probe.name}: an empty export`);
    },
  }));
}
