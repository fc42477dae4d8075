import type { Api, BenchDataset } from "./api.ts";
import type { DatasetGenerator } from "./data.ts";
import type { Scenario } from "./latency.ts";
import { PENDING_FILTERS } from "./page-filters.ts";

/** The name shared by the rows of this group: `--only filters` runs them (they run only when asked for). */
export const FILTER_PROBES = "filters";

const UI_QUERY = "include=responses&include=suggestions&offset=0&limit=10";

type Filter = Record<string, unknown>;
interface Probe {
  name: string;
  /** The admin search (any user's responses, the owner's key) instead of the caller's `/me` search. */
  admin?: boolean;
  /** A word never searched before on each call, in the whole text or in one field. */
  text?: "word" | "phrase" | { field: string };
  filters: Filter[];
  sort?: Filter[];
}

const pending = PENDING_FILTERS.and[0]!;
const suggestion = (property: string) => ({ entity: "suggestion", question: "sentiment", property });
const submitted = { type: "terms", scope: { entity: "response", property: "status" }, values: ["submitted"] };
const label = { type: "terms", scope: { entity: "response", question: "sentiment" }, values: ["positive"] };

/**
 * The annotation page's filters and sorts (ux-reference §2.5, api-contract §4) as the integrator's probe battery of
 * issues 25 and 31 sent them at 1M records: suggestions (value, score range, agent), responses (the caller's, any
 * user's), sorts by metadata, suggestion score, update time and response value, each with a new word (or phrase, or
 * one field) per call and without text; the page of 10 with responses and suggestions and its total.
 */
export const PROBES: Probe[] = [
  {
    name: "word + suggestion value",
    text: "word",
    filters: [pending, { type: "terms", scope: suggestion("value"), values: ["positive"] }],
  },
  { name: "word + suggestion score >= 0.8", text: "word", filters: [pending, { type: "range", scope: suggestion("score"), ge: 0.8 }] },
  {
    name: "word + suggestion agent",
    text: "word",
    filters: [pending, { type: "terms", scope: suggestion("agent"), values: ["bench-model-v1"] }],
  },
  { name: "word, submitted + my label", text: "word", filters: [submitted, label] },
  {
    name: "word, sort length desc",
    text: "word",
    filters: [pending],
    sort: [{ scope: { entity: "metadata", metadata_property: "length" }, order: "desc" }],
  },
  { name: "word in field summary", text: { field: "summary" }, filters: [pending] },
  {
    name: "word, record status completed",
    text: "word",
    filters: [{ type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] }],
  },
  { name: "word, no filter", text: "word", filters: [] },
  {
    name: "phrase + metadata + suggestion",
    text: "phrase",
    filters: [
      pending,
      { type: "terms", scope: { entity: "metadata", metadata_property: "source" }, values: ["news"] },
      { type: "terms", scope: suggestion("value"), values: ["negative"] },
    ],
  },
  { name: "admin: word + submitted (any user)", admin: true, text: "word", filters: [submitted] },
  { name: "admin: word + response value (any user)", admin: true, text: "word", filters: [label] },
  {
    name: "admin: word, sort updated_at desc",
    admin: true,
    text: "word",
    filters: [],
    sort: [{ scope: { entity: "record", property: "updated_at" }, order: "desc" }],
  },
  {
    name: "word + inserted_at range",
    text: "word",
    filters: [pending, { type: "range", scope: { entity: "record", property: "inserted_at" }, ge: "2020-01-01T00:00:00" }],
  },
  { name: "pending + suggestion value", filters: [pending, { type: "terms", scope: suggestion("value"), values: ["positive"] }] },
  { name: "pending + suggestion score >= 0.8", filters: [pending, { type: "range", scope: suggestion("score"), ge: 0.8 }] },
  { name: "pending, sort suggestion score desc", filters: [pending], sort: [{ scope: suggestion("score"), order: "desc" }] },
  {
    name: "pending, sort length desc",
    filters: [pending],
    sort: [{ scope: { entity: "metadata", metadata_property: "length" }, order: "desc" }],
  },
  {
    name: "pending, sort updated_at desc",
    filters: [pending],
    sort: [{ scope: { entity: "record", property: "updated_at" }, order: "desc" }],
  },
  { name: "submitted + my label", filters: [submitted, label] },
  { name: "admin: response value (any user)", admin: true, filters: [label] },
  {
    name: "admin: sort response value",
    admin: true,
    filters: [],
    sort: [{ scope: { entity: "response", question: "sentiment" }, order: "asc" }],
  },
  {
    name: "pending + metadata + suggestion agent",
    filters: [
      pending,
      { type: "terms", scope: { entity: "metadata", metadata_property: "source" }, values: ["news"] },
      { type: "terms", scope: suggestion("agent"), values: ["bench-model-v1"] },
    ],
  },
];

/** The search body of a probe, `word` and `phrase` giving its new text. */
export function probeBody(probe: Probe, word: () => string): Record<string, unknown> {
  const q = probe.text === undefined ? null : probe.text === "phrase" ? `${word()} ${word()}` : word();
  const field = typeof probe.text === "object" ? probe.text.field : null;
  return {
    query: q === null ? null : { text: { q, field } },
    filters: probe.filters.length > 0 ? { and: probe.filters } : null,
    sort: probe.sort ?? null,
  };
}

/**
 * The probes as latency rows ("filters: ..."): one client, each call a word never searched before (the ranks from
 * 300 on, in steps that cycle through the frequency bands: about 10% down to 0.5% of the records match), the page
 * of 10 and its total; the admin rows with the owner's key.
 */
export function filterScenarios(ds: BenchDataset, gen: DatasetGenerator, owner: Api): Scenario[] {
  let next = 0;
  const word = () => gen.wordAt(300 + ((next++ * 37) % Math.max(1, gen.words.length - 300)));
  return PROBES.map((probe) => ({
    name: `${FILTER_PROBES}: ${probe.admin ? "" : "me: "}${probe.name}`,
    recordsPerRequest: 0,
    run: async (c) => {
      const api = probe.admin ? owner : c.api;
      const path = `${probe.admin ? "" : "/me"}/datasets/${ds.datasetId}/records/search?${UI_QUERY}`;
      const res = await api.raw("POST", path, probeBody(probe, word));
      const text = await res.text();
      if (!res.ok) throw new Error(`${probe.name}: ${res.status} ${text.slice(0, 300)}`);
      if (typeof (JSON.parse(text) as { total?: unknown }).total !== "number") throw new Error(`${probe.name}: no total`);
    },
  }));
}
