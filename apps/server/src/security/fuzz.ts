import fc from "fast-check";
import type { TestServer } from "../testing/test-server.js";
import { Fixtures } from "../testing/fixtures.js";
import { routeTable } from "./index.js";
import { storeChecksums } from "./checksum.js";
import { indexRecordTexts } from "../records/ingest.js";
import { seededRandom } from "../testing/random.js";
import { HOSTILE_NAMES, HOSTILE_SEARCH_TEXTS } from "../testing/hostile-inputs.js";

/**
 * Seeded fuzzing of every registered route: random and malformed ids, query strings, headers and
 * bodies (random JSON, broken JSON, mutated valid bodies, wrong content types) from several callers.
 * Invariants: never a 5xx, and a request that fails (4xx) leaves every table exactly as it was, on
 * either store (fuzz.test.ts runs on SQLite in stage 20 and on PostgreSQL in stage 60).
 */

export interface FuzzReport {
  requests: number;
  statuses: Record<number, number>;
  problems: string[];
}

interface FuzzWorld {
  ids: Record<string, string>;
  headers: Record<string, Record<string, string>>;
  validBodies: Record<string, unknown>;
}

const NASTY_STRINGS = [
  "",
  " ",
  "null",
  "undefined",
  "0",
  "-1",
  "1e309",
  "NaN",
  "true",
  "[]",
  "{}",
  "%00",
  "\u0000",
  "../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "' OR '1'='1",
  "1; DROP TABLE users; --",
  '" OR 1=1 --',
  "<script>window.__pwned()</script>",
  "${7*7}",
  "{{7*7}}",
  "__proto__",
  "constructor",
  "x".repeat(600),
  "é".repeat(300),
  "😀".repeat(100),
  "\ud800",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "00000000-0000-0000-0000-00000000000g",
  "*",
  "%",
  "_",
  "\\",
  "\n\r\t",
];

const QUERY_KEYS = [
  "include",
  "offset",
  "limit",
  "ids",
  "workspace_id",
  "q",
  "sort_by",
  "response_status",
  "name",
  "code",
  "state",
  "redirect",
  "__proto__",
  "constructor",
];

function jsonValue(depth = 3): fc.Arbitrary<unknown> {
  return fc.letrec<{ v: unknown }>((tie) => ({
    v: fc.oneof(
      { depthSize: "small", maxDepth: depth },
      fc.constantFrom(...NASTY_STRINGS),
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("v"), { maxLength: 4 }),
      fc.dictionary(
        fc.oneof(
          fc.string({ maxLength: 8 }),
          fc.constantFrom("id", "name", "values", "items", "fields", "settings", "type", "value", "status", "__proto__"),
        ),
        tie("v"),
        { maxKeys: 5 },
      ),
    ),
  })).v;
}

/** Seeded integers for the body mutations. */
class Rand {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  nextInt(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
}

/** Replaces, deletes or adds keys somewhere in a valid body. */
function mutate(body: unknown, rnd: Rand): unknown {
  if (body === null || typeof body !== "object") return fc.sample(jsonValue(2), { numRuns: 1, seed: rnd.nextInt(0, 2 ** 31 - 1) })[0];
  const copy: Record<string, unknown> = Array.isArray(body) ? { ...body } : { ...(body as Record<string, unknown>) };
  const keys = Object.keys(copy);
  const key = keys[rnd.nextInt(0, Math.max(0, keys.length - 1))];
  const op = rnd.nextInt(0, 3);
  if (key !== undefined && op === 0) delete copy[key];
  else if (key !== undefined && op === 1) copy[key] = fc.sample(jsonValue(2), { numRuns: 1, seed: rnd.nextInt(0, 2 ** 31 - 1) })[0];
  else if (key !== undefined && op === 2) copy[key] = mutate(copy[key], rnd);
  else copy[`extra_${rnd.nextInt(0, 9)}`] = fc.sample(jsonValue(1), { numRuns: 1, seed: rnd.nextInt(0, 2 ** 31 - 1) })[0];
  return Array.isArray(body) ? Object.values(copy) : copy;
}

/** Text no store can keep (security/storable-text.ts): PostgreSQL answered 500 wherever it reached a query. */
const UNSTORABLE = ["\u0000", "a\u0000b", "\ud800", "x\udc00"];

/** A valid body with every text in it (values, not keys) replaced by unstorable text. */
function unstorableLeaves(body: unknown, random: Rand): unknown {
  if (typeof body === "string") return UNSTORABLE[random.nextInt(0, UNSTORABLE.length - 1)];
  if (Array.isArray(body)) return body.map((item) => unstorableLeaves(item, random));
  if (body !== null && typeof body === "object")
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, unstorableLeaves(v, random)]));
  return body;
}

/** A valid body with a hostile search text or name (issue 28), for the routes that take one; undefined otherwise. */
function hostileBody(routeKey: string, valid: unknown, random: Rand): unknown {
  if (routeKey.endsWith("/records/search")) {
    const q = HOSTILE_SEARCH_TEXTS[random.nextInt(0, HOSTILE_SEARCH_TEXTS.length - 1)]!;
    return { query: { text: { q, field: random.nextInt(0, 1) ? "text" : null } } };
  }
  if (valid !== null && typeof valid === "object" && "name" in valid)
    return { ...valid, name: HOSTILE_NAMES[random.nextInt(0, HOSTILE_NAMES.length - 1)] };
  return undefined;
}

async function buildWorld(server: TestServer): Promise<FuzzWorld> {
  const fx = new Fixtures(server);
  const ws = await fx.workspace();
  const ds = await fx.dataset(ws.id);
  const field = await fx.field(ds.id, { name: "text", title: "Text", settings: { type: "text" } });
  const question = await fx.question(ds.id, { name: "label" });
  const metadata = await fx.metadataProperty(ds.id, { name: "genre" });
  const vector = await fx.vectorSettings(ds.id, { name: "emb" });
  await fx.publish(ds.id);
  const annotator = await fx.member(ws.id, "annotator");
  const admin = await fx.member(ws.id, "admin");
  const records = await fx.ok<{ items: { id: string }[] }>("POST", `/datasets/${ds.id}/records/bulk`, {
    items: Array.from({ length: 5 }, (_, i) => ({
      fields: { text: `record ${i}` },
      metadata: { genre: "news" },
      vectors: { emb: [i, 1, 0] },
    })),
  });
  const record = records.items[0]!.id;
  const response = await fx.ok<{ id: string }>(
    "POST",
    `/records/${record}/responses`,
    { values: { label: { value: "yes" } }, status: "submitted" },
    201,
    annotator.headers,
  );
  const suggestion = await fx.ok<{ id: string }>("PUT", `/records/${record}/suggestions`, { question_id: question.id, value: "yes" }, 201);
  const ids: Record<string, string> = {
    workspace_id: ws.id,
    dataset_id: ds.id,
    datasetId: ds.id,
    field_id: field.id,
    question_id: question.id,
    metadata_property_id: metadata.id,
    vector_settings_id: vector.id,
    record_id: record,
    response_id: response.id,
    suggestion_id: suggestion.id,
    user_id: annotator.id,
    jobId: "job-1",
    provider: "huggingface",
  };
  const validBodies: Record<string, unknown> = {
    "POST /api/v1/token": { username: "owner", password: "wrong-password" },
    "POST /api/v1/users": { username: "fuzzuser", first_name: "F", password: "password-1234" },
    "POST /api/v1/workspaces": { name: "fuzz-ws" },
    "POST /api/v1/workspaces/:workspace_id/users": { user_id: admin.id },
    "POST /api/v1/datasets": { name: "fuzz-ds", workspace_id: ws.id },
    "PATCH /api/v1/datasets/:dataset_id": { guidelines: "g", distribution: { strategy: "overlap", min_submitted: 1 } },
    "POST /api/v1/datasets/:dataset_id/fields": { name: "f2", title: "F", settings: { type: "text" } },
    "POST /api/v1/datasets/:dataset_id/questions": {
      name: "q2",
      title: "Q",
      settings: { type: "rating", options: [{ value: 1 }, { value: 2 }] },
    },
    "POST /api/v1/datasets/:dataset_id/metadata-properties": { name: "m2", title: "M", settings: { type: "float", min: 0, max: 1 } },
    "POST /api/v1/datasets/:dataset_id/vectors-settings": { name: "v2", title: "V", dimensions: 2 },
    "POST /api/v1/datasets/:dataset_id/records/bulk": {
      items: [
        {
          fields: { text: "t" },
          metadata: { genre: "blog" },
          vectors: { emb: [1, 2, 3] },
          suggestions: [{ question_id: question.id, value: "no" }],
        },
      ],
    },
    "PUT /api/v1/datasets/:dataset_id/records/bulk": { items: [{ id: record, fields: { text: "t2" } }] },
    "POST /api/v1/datasets/:dataset_id/records/search": {
      query: { text: { q: "record" } },
      filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "genre" }, values: ["news"] }] },
      sort: [{ scope: { entity: "record", property: "inserted_at" }, order: "desc" }],
    },
    "POST /api/v1/me/datasets/:dataset_id/records/search": {
      query: { vector: { name: "emb", value: [1, 0, 0] } },
      filters: {
        and: [
          { type: "terms", scope: { entity: "response", property: "status" }, values: ["submitted"] },
          { type: "terms", scope: { entity: "suggestion", question: "label" }, values: ["yes"] },
          { type: "terms", scope: { entity: "record", property: "external_id" }, values: ["e1"] },
        ],
      },
    },
    "POST /api/v1/datasets/:dataset_id/records/export": {
      query: { text: { q: "record" } },
      filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "genre" }, values: ["news"] }] },
    },
    "POST /api/v1/datasets/:dataset_id/agreement": {
      question: "label",
      filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "genre" }, values: ["news"] }] },
    },
    "POST /api/v1/datasets/:dataset_id/review/records": {
      disagreements: false,
      filters: { and: [{ type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] }] },
    },
    "PUT /api/v1/records/:record_id/final-answer": { values: { label: { value: "yes" } } },
    "PATCH /api/v1/records/:record_id": { metadata: { genre: "forum" }, vectors: { emb: [0, 0, 1] } },
    "POST /api/v1/records/:record_id/responses": { values: { label: { value: "no" } }, status: "submitted" },
    "PUT /api/v1/responses/:response_id": { values: { label: { value: "no" } }, status: "draft" },
    "POST /api/v1/me/responses/bulk": { items: [{ record_id: record, values: { label: { value: "yes" } }, status: "submitted" }] },
    "PUT /api/v1/records/:record_id/suggestions": { question_id: question.id, value: "no", score: 0.5, agent: "a", type: "model" },
    "PATCH /api/v1/fields/:field_id": { title: "T", settings: { type: "text", use_markdown: true } },
    "PATCH /api/v1/questions/:question_id": {
      title: "T",
      settings: {
        type: "label_selection",
        options: [
          { value: "yes", text: "Y" },
          { value: "no", text: "N" },
        ],
      },
    },
    "PATCH /api/v1/metadata-properties/:metadata_property_id": { title: "T", visible_for_annotators: false },
    "PATCH /api/v1/vectors-settings/:vector_settings_id": { title: "T" },
    "PATCH /api/v1/users/:user_id": { first_name: "N", role: "admin" },
    "PUT /api/v1/users/:user_id": { first_name: "N" },
    "POST /api/v1/datasets/:datasetId/import": {
      name: "owner/name",
      subset: "default",
      split: "train",
      mapping: { fields: [{ source: "text", target: "text" }] },
    },
  };
  return {
    ids,
    validBodies,
    headers: {
      owner: fx.owner,
      annotator: annotator.headers,
      admin: admin.headers,
      anonymous: {},
      garbage: { "x-argilla-api-key": "not-a-key", authorization: "Bearer not.a.jwt" },
    },
  };
}

/** Percent-encodes a path segment; a lone surrogate goes out as invalid UTF-8 on purpose. */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return "%ED%A0%80";
  }
}

interface FuzzCase {
  route: number;
  actor: string;
  idMode: number;
  idNasty: string;
  query: [string, string][];
  bodyMode: number;
  body: unknown;
  seed: number;
}

export async function fuzzRoutes(server: TestServer, options: { runs: number; seed: number }): Promise<FuzzReport> {
  const world = await buildWorld(server);
  const routes = routeTable(server.app).filter((r) => r.url.startsWith("/api/"));
  const store = server.ctx.store;
  const report: FuzzReport = { requests: 0, statuses: {}, problems: [] };
  const arb = fc.record<FuzzCase>({
    route: fc.nat({ max: routes.length - 1 }),
    actor: fc.constantFrom("owner", "owner", "admin", "annotator", "anonymous", "garbage"),
    idMode: fc.nat({ max: 3 }),
    idNasty: fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.uuid(), fc.string({ maxLength: 40 })),
    query: fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 6 })),
        fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ maxLength: 20 }), fc.integer().map(String)),
      ),
      { maxLength: 4 },
    ),
    bodyMode: fc.nat({ max: 7 }),
    body: jsonValue(),
    seed: fc.integer(),
  });
  await fc.assert(
    fc.asyncProperty(arb, async (c) => {
      const route = routes[c.route]!;
      const routeKey = `${route.method} ${route.url}`;
      // Keep the world: destructive calls by the owner on the real resources would empty it early.
      const useValidIds = c.idMode > 0 && !(route.method === "DELETE" && c.actor === "owner");
      const path = route.url.replace(/:(\w+)/g, (_, name: string) =>
        encodeSegment(useValidIds ? (world.ids[name] ?? c.idNasty) : c.idNasty),
      );
      const qs = c.query.map(([k, v]) => `${encodeSegment(k)}=${encodeSegment(v)}`).join("&");
      const headers: Record<string, string> = { ...world.headers[c.actor] };
      let body: string | undefined;
      if (route.method !== "GET" && (route.method !== "DELETE" || c.bodyMode === 6)) {
        const valid = world.validBodies[routeKey];
        const random = new Rand(c.seed);
        switch (c.bodyMode) {
          case 0:
            body = JSON.stringify(c.body);
            headers["content-type"] = "application/json";
            break;
          case 1:
            body = JSON.stringify(c.body).slice(0, Math.max(1, JSON.stringify(c.body).length - 1)) + "{";
            headers["content-type"] = "application/json";
            break;
          case 2:
            body = new URLSearchParams({
              username: JSON.stringify(c.body).slice(0, 300),
              password: JSON.stringify(c.body) ?? "",
            }).toString();
            headers["content-type"] = "application/x-www-form-urlencoded";
            break;
          case 3:
            body = "\u0000\u00ff<xml/>";
            headers["content-type"] = random.nextInt(0, 1) ? "text/plain" : "application/xml";
            break;
          case 4:
            body = JSON.stringify(hostileBody(routeKey, valid, random) ?? (valid === undefined ? c.body : mutate(valid, random)));
            headers["content-type"] = "application/json";
            break;
          case 7:
            body = JSON.stringify(unstorableLeaves(valid ?? c.body, random));
            headers["content-type"] = "application/json";
            break;
          default:
            body = JSON.stringify(valid === undefined ? c.body : mutate(valid, random));
            headers["content-type"] = "application/json";
        }
      }
      // Records written by earlier (allowed) calls get their full-text rows from the background indexer: done now, so that it cannot change a table during this call.
      await indexRecordTexts(server.ctx.store.db);
      const before = await storeChecksums(store);
      let status: number;
      let text = "";
      try {
        const res = await fetch(`${server.url}${path}${qs ? `?${qs}` : ""}`, { method: route.method, headers, body, redirect: "manual" });
        status = res.status;
        text = await res.text();
      } catch (error) {
        report.problems.push(`${routeKey} ${path}: request failed ${String(error)}`);
        return;
      }
      report.requests++;
      report.statuses[status] = (report.statuses[status] ?? 0) + 1;
      // The import route reports an unreachable Hub as 502/503 (the fuzz points it at a closed port); anything else is a bug.
      const upstream = route.url.endsWith("/import") && (status === 502 || status === 503);
      if (status >= 500 && !upstream)
        report.problems.push(
          `${route.method} ${path}?${qs} as ${c.actor} body=${(body ?? "").slice(0, 200)} -> ${status} ${text.slice(0, 200)}`,
        );
      if (status >= 400) {
        const after = await storeChecksums(store);
        const changed = Object.keys({ ...before, ...after }).filter((t) => before[t] !== after[t]);
        if (changed.length > 0)
          report.problems.push(`${route.method} ${path} as ${c.actor} -> ${status} but changed ${changed.join(", ")}`);
      }
    }),
    { numRuns: options.runs, seed: options.seed, endOnFailure: true },
  );
  return report;
}
