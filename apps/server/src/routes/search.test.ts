import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { FORBIDDEN, type Json } from "../testing/fixtures.js";
import { richDataset, type RichDataset } from "../records/testing.js";
import { indexRecordTexts } from "../records/ingest.js";
import { seededRandom } from "../testing/random.js";

let server: TestServer;
let d: RichDataset;
let byExt: Record<string, string>;
type Hit = {
  record: Json & { id: string; external_id: string; metadata: Json | null; responses?: Json[]; suggestions?: Json[]; vectors?: Json };
  query_score: number | null;
};
type Result = { items: Hit[]; total: number };

beforeAll(async () => {
  server = await startTestServer();
  d = await richDataset(server);
  const items = [
    {
      external_id: "a",
      fields: { text: "The quick brown fox", context: "animals" },
      metadata: { genre: "news", words: 4, quality: 0.9 },
      vectors: { emb: [1, 0, 0] },
      suggestions: [{ question_id: d.questions.label.id, value: "positive", score: 0.9, agent: "gpt", type: "model" }],
    },
    {
      external_id: "b",
      fields: { text: "A lazy dog sleeps", context: "fox den" },
      metadata: { genre: "blog", words: 40, quality: 0.2 },
      vectors: { emb: [0.9, 0.1, 0] },
      suggestions: [{ question_id: d.questions.label.id, value: "negative", score: 0.3, agent: "bert", type: "human" }],
    },
    { external_id: "c", fields: { text: "Café au lait" }, metadata: { genre: "forum", words: 400 }, vectors: { emb: [0, 0, 1] } },
    { external_id: "d", fields: { text: "Nothing to see" } },
  ];
  const res = await d.f.request<{ items: { id: string; external_id: string }[] }>("POST", `/datasets/${d.datasetId}/records/bulk`, {
    body: { items },
  });
  byExt = Object.fromEntries(res.body.items.map((r) => [r.external_id, r.id]));
  await d.f.request("POST", `/records/${byExt.a}/responses`, {
    body: { status: "submitted", values: { label: { value: "positive" }, rating: { value: 4 } } },
    headers: d.annotator.headers,
  });
  await d.f.request("POST", `/records/${byExt.b}/responses`, {
    body: { status: "draft", values: { rating: { value: 2 } } },
    headers: d.annotator.headers,
  });
  await d.f.request("POST", `/records/${byExt.c}/responses`, { body: { status: "discarded" }, headers: d.annotator2.headers });
}, 60_000);
afterAll(async () => {
  await server.stop();
});

const search = (body: unknown, options: { mine?: boolean; query?: string; headers?: Record<string, string> } = {}) =>
  d.f.request<Result>("POST", `${options.mine ? "/me" : ""}/datasets/${d.datasetId}/records/search${options.query ?? ""}`, {
    body,
    headers: options.headers ?? d.f.owner,
  });
const exts = (r: { body: Result }) => r.body.items.map((i) => i.record.external_id);
const terms = (scope: Json, values: unknown[]) => ({ filters: { and: [{ type: "terms", scope, values }] } });

describe("text search", () => {
  it("matches words over all fields or one field, with a query score, ignoring accents", async () => {
    const all = await search({ query: { text: { q: "fox", field: null } } });
    expect(all.status).toBe(200);
    expect(exts(all).sort()).toEqual(["a", "b"]);
    expect(all.body.total).toBe(2);
    expect(all.body.items.every((i) => typeof i.query_score === "number" && i.query_score > 0)).toBe(true);
    expect(exts(await search({ query: { text: { q: "fox", field: "text" } } }))).toEqual(["a"]);
    expect(exts(await search({ query: { text: { q: "cafe" } } }))).toEqual(["c"]);
    expect(exts(await search({ query: { text: { q: "quick fox" } } }))).toEqual(["a"]);
    expect(exts(await search({ query: { text: { q: "qui*" } } }))).toEqual(["a"]);
    expect((await search({ query: { text: { q: '"unbalanced (AND OR' } } })).status).toBe(200);
    expect(await search({ query: { text: { q: "x", field: "nope" } } })).toEqual({
      status: 422,
      body: { detail: `Field \`nope\` not found in dataset \`${d.datasetId}\`.` },
    });
  });
});

describe("vector search", () => {
  it("orders by similarity to a record or a value, bounded by limit, excluding the reference", async () => {
    // On PostgreSQL too: the PostgreSQL stage's server has pgvector (without it: 422, search/postgres-search.test.ts).
    expect(server.ctx.store.vectorSearch).toBe(true);
    const most = await search({ query: { vector: { name: d.vectorName, record_id: byExt.a } } }, { query: "?limit=2" });
    expect(exts(most)).toEqual(["b", "c"]);
    expect(most.body.total).toBe(2);
    expect(most.body.items[0]!.query_score!).toBeGreaterThan(most.body.items[1]!.query_score!);
    expect(exts(await search({ query: { vector: { name: d.vectorName, value: [0, 0, 1], order: "least_similar" } } }))).toEqual([
      "a",
      "b",
      "c",
    ]);
    expect(
      exts(
        await search({
          query: { vector: { name: d.vectorName, value: [1, 0, 0] } },
          ...terms({ entity: "metadata", metadata_property: "genre" }, ["forum", "blog"]),
        }),
      ),
    ).toEqual(["b", "c"]);
  });

  it("searches from a record as from its stored values (float32, not short decimals), in both orders, only in the record's dataset", async () => {
    const other = await richDataset(server);
    const values = [0.1, 1 / 3, -2 / 7];
    const stored = Array.from(new Float32Array(values));
    const add = async (ds: RichDataset, items: Json[]) =>
      (await ds.f.request<{ items: { id: string }[] }>("POST", `/datasets/${ds.datasetId}/records/bulk`, { body: { items } })).body.items;
    const [reference] = await add(d, [{ external_id: "ref", fields: { text: "reference" }, vectors: { emb: values } }]);
    const [elsewhere] = await add(other, [{ external_id: "x", fields: { text: "elsewhere" }, vectors: { emb: values } }]);
    try {
      for (const order of ["most_similar", "least_similar"]) {
        const fromRecord = await search({ query: { vector: { name: d.vectorName, record_id: reference!.id, order } } });
        const fromValues = await search({ query: { vector: { name: d.vectorName, value: stored, order } } });
        expect(fromRecord.status).toBe(200);
        // The same records but the reference, with the same scores.
        expect(exts(fromRecord)).toEqual(exts(fromValues).filter((e) => e !== "ref"));
        const scores = new Map(fromValues.body.items.map((i) => [i.record.external_id, i.query_score!]));
        for (const item of fromRecord.body.items) expect(item.query_score!).toBeCloseTo(scores.get(item.record.external_id)!, 9);
      }
      // A record of another dataset is not found in this one.
      expect(await search({ query: { vector: { name: d.vectorName, record_id: elsewhere!.id } } })).toEqual({
        status: 422,
        body: { detail: `Record with id \`${elsewhere!.id}\` not found in dataset \`${d.datasetId}\`.` },
      });
    } finally {
      await d.f.ok("DELETE", `/records/${reference!.id}`);
    }
  });

  it("finds at most 1,000 records, paged with offset and limit until an empty page (the SDK iterates so)", async (t) => {
    const big = await richDataset(server);
    if (!server.ctx.store.vectorSearch) {
      t.skip("this PostgreSQL has no pgvector extension");
      return;
    }
    // The SDK suite's shape: 1,500 records with 10 random dimensions (on PostgreSQL below the similarity index's 10,000 vectors: the exact scan).
    const setting = await big.f.vectorSettings(big.datasetId, { name: "ten", dimensions: 10 });
    const random = seededRandom(1500);
    const vectors = Array.from({ length: 1500 }, () => Array.from({ length: 10 }, random));
    for (let i = 0; i < vectors.length; i += 500) {
      const items = vectors
        .slice(i, i + 500)
        .map((v, j) => ({ external_id: `${i + j}`, fields: { text: `record ${i + j}` }, vectors: { [setting.name]: v } }));
      expect((await big.f.request("POST", `/datasets/${big.datasetId}/records/bulk`, { body: { items } })).status).toBe(201);
    }
    // With planner statistics (as after an import's writes pause) PostgreSQL plans it as after an import.
    if (server.ctx.store.dialect === "postgres") await sql`analyze records, record_vectors`.execute(server.ctx.db);
    const page = (vector: Json, offset: number) =>
      big.f.request<Result>("POST", `/datasets/${big.datasetId}/records/search?offset=${offset}&limit=256`, {
        body: { query: { vector } },
      });
    for (const order of ["most_similar", "least_similar"]) {
      const seen: string[] = [];
      const scores: number[] = [];
      for (let offset = 0; ; offset += 256) {
        const res = await page({ name: setting.name, value: vectors[3], order }, offset);
        expect(res.status).toBe(200);
        // The total is what the search found so far: the offset + limit nearest, at most 1,000.
        expect(res.body.total).toBe(Math.min(1000, offset + 256));
        if (res.body.items.length === 0) break;
        seen.push(...res.body.items.map((i) => i.record.external_id));
        scores.push(...res.body.items.map((i) => i.query_score!));
        expect(offset).toBeLessThan(1000);
      }
      expect(seen).toHaveLength(1000);
      expect(new Set(seen).size).toBe(1000);
      if (order === "most_similar") expect(seen[0]).toBe("3");
      else expect(seen).not.toContain("3");
      // Ordered across pages: scores never go the wrong way.
      for (let i = 1; i < scores.length; i++)
        expect(order === "most_similar" ? scores[i]! <= scores[i - 1]! + 1e-6 : scores[i]! >= scores[i - 1]! - 1e-6).toBe(true);
    }
    // From a record: the reference is left out, 1,000 others come back.
    const reference = (await big.f.request<{ items: { id: string }[] }>("GET", `/datasets/${big.datasetId}/records?limit=1`)).body.items[0]!
      .id;
    const fromRecord: string[] = [];
    for (let offset = 0; offset < 2000; offset += 256) {
      const items = (await page({ name: setting.name, record_id: reference }, offset)).body.items;
      if (items.length === 0) break;
      fromRecord.push(...items.map((i) => i.record.id));
    }
    expect(fromRecord).toHaveLength(1000);
    expect(fromRecord).not.toContain(reference);
  });

  it("gives the business errors of contract 2.3 and 2.4", async () => {
    expect(await search({ query: { vector: { name: d.vectorName, record_id: byExt.d } } })).toEqual({
      status: 422,
      body: { code: "missing_vector", message: `Record \`${byExt.d}\` does not have a vector for vector settings \`${d.vectorName}\`` },
    });
    expect(await search({ query: { vector: { name: "nope", value: [1, 2, 3] } } })).toEqual({
      status: 422,
      body: { detail: `Vector \`nope\` not found in dataset \`${d.datasetId}\`.` },
    });
    const missing = "00000000-0000-4000-8000-000000000000";
    expect(await search({ query: { vector: { name: d.vectorName, record_id: missing } } })).toEqual({
      status: 422,
      body: { detail: `Record with id \`${missing}\` not found in dataset \`${d.datasetId}\`.` },
    });
    expect((await search({ query: { vector: { name: d.vectorName, record_id: byExt.a, value: [1, 2, 3] } } })).status).toBe(422);
    expect((await search({ query: { vector: { name: d.vectorName } } })).status).toBe(422);
    expect((await search({ query: { vector: { name: d.vectorName, value: [1, 2] } } })).status).toBe(422);
  });
});

describe("filters and sort", () => {
  it("filters on metadata terms and ranges, record status and properties", async () => {
    expect(exts(await search(terms({ entity: "metadata", metadata_property: "genre" }, ["news", "forum"])))).toEqual(["a", "c"]);
    expect(
      exts(
        await search({ filters: { and: [{ type: "range", scope: { entity: "metadata", metadata_property: "words" }, ge: 10, le: 400 }] } }),
      ),
    ).toEqual(["b", "c"]);
    expect(
      exts(await search({ filters: { and: [{ type: "range", scope: { entity: "metadata", metadata_property: "quality" }, ge: 0.5 }] } })),
    ).toEqual(["a"]);
    expect(exts(await search(terms({ entity: "record", property: "status" }, ["completed"])))).toEqual(["a"]);
    // External ids are text; the SDK's ("id", "==", 7) sends the number 7. The server id filters too.
    const seven = (
      await d.f.request<{ items: { id: string }[] }>("POST", `/datasets/${d.datasetId}/records/bulk`, {
        body: { items: [{ external_id: 7, fields: { text: "seven" } }] },
      })
    ).body.items[0]!.id;
    expect(exts(await search(terms({ entity: "record", property: "external_id" }, [7])))).toEqual(["7"]);
    expect(exts(await search(terms({ entity: "record", property: "external_id" }, ["7", "a"])))).toEqual(["a", "7"]);
    expect(exts(await search(terms({ entity: "record", property: "id" }, [byExt.b, seven])))).toEqual(["b", "7"]);
    expect((await d.f.request("DELETE", `/datasets/${d.datasetId}/records?ids=${seven}`)).status).toBe(204);
    expect(
      exts(
        await search({
          filters: { and: [{ type: "range", scope: { entity: "record", property: "inserted_at" }, ge: "2000-01-01T00:00:00Z" }] },
        }),
      ),
    ).toHaveLength(4);
    expect(await search(terms({ entity: "metadata", metadata_property: "nope" }, ["x"]))).toEqual({
      status: 422,
      body: { detail: `MetadataProperty not found filtering by name=nope, dataset_id=${d.datasetId}` },
    });
  });

  it("filters on response status (pending = no response) and values, per user on /me", async () => {
    const status = (values: string[]) => terms({ entity: "response", property: "status" }, values);
    expect(exts(await search(status(["pending"])))).toEqual(["d"]);
    expect(exts(await search(status(["submitted", "discarded"])))).toEqual(["a", "c"]);
    expect(exts(await search(status(["pending"]), { mine: true, headers: d.annotator.headers }))).toEqual(["c", "d"]);
    expect(exts(await search(status(["draft"]), { mine: true, headers: d.annotator.headers }))).toEqual(["b"]);
    expect(exts(await search(terms({ entity: "response", question: "label" }, ["positive"])))).toEqual(["a"]);
    expect(exts(await search({ filters: { and: [{ type: "range", scope: { entity: "response", question: "rating" }, le: 3 }] } }))).toEqual(
      ["b"],
    );
    expect(
      exts(await search(terms({ entity: "response", question: "label" }, ["positive"]), { mine: true, headers: d.annotator2.headers })),
    ).toEqual([]);
    expect((await search(terms({ entity: "response", question: "nope" }, ["x"]))).status).toBe(422);
  });

  it("filters on suggestion value, agent, type and score, and sorts", async () => {
    const scope = (property: string) => ({ entity: "suggestion", question: "label", property });
    expect(exts(await search(terms(scope("value"), ["negative"])))).toEqual(["b"]);
    expect(exts(await search(terms(scope("agent"), ["gpt"])))).toEqual(["a"]);
    // The SDK's ("label.type", "==", "human"): a is a model's suggestion, b a human's.
    expect(exts(await search(terms(scope("type"), ["human"])))).toEqual(["b"]);
    expect(exts(await search(terms(scope("type"), ["model", "human"])))).toEqual(["a", "b"]);
    expect(exts(await search({ sort: [{ scope: scope("type"), order: "desc" }] }))).toEqual(["a", "b", "c", "d"]);
    expect(exts(await search({ filters: { and: [{ type: "range", scope: scope("score"), ge: 0.5 }] } }))).toEqual(["a"]);
    expect(exts(await search({ sort: [{ scope: { entity: "metadata", metadata_property: "words" }, order: "desc" }] }))).toEqual([
      "c",
      "b",
      "a",
      "d",
    ]);
    expect(exts(await search({ sort: [{ scope: { entity: "suggestion", question: "label", property: "score" }, order: "asc" }] }))).toEqual(
      ["b", "a", "c", "d"],
    );
    expect(exts(await search({ sort: [{ scope: { entity: "record", property: "inserted_at" }, order: "desc" }] }))).toEqual([
      "d",
      "c",
      "b",
      "a",
    ]);
  });

  it("pages with offset and limit and reports the total", async () => {
    const page = await search({}, { query: "?offset=1&limit=2" });
    expect(exts(page)).toEqual(["b", "c"]);
    expect(page.body.total).toBe(4);
    expect((await search({}, { query: "?limit=1001" })).status).toBe(422);
    expect((await search({ filters: { and: [] } })).status).toBe(422);
    expect(
      (await search({ filters: { and: [{ type: "range", scope: { entity: "metadata", metadata_property: "words" } }] } })).status,
    ).toBe(422);
    expect(
      (await search({ filters: { and: [{ type: "range", scope: { entity: "metadata", metadata_property: "words" }, ge: 5, le: 1 }] } }))
        .status,
    ).toBe(422);
    expect((await search("{nope")).status).toBe(422);
    expect((await search({ sort: [{ scope: { entity: "weird" } }] })).status).toBe(422);
  });
});

describe("includes, visibility and permissions", () => {
  it("includes only the caller's responses and visible metadata on /me; all on the admin endpoint", async () => {
    const mine = await search(terms({ entity: "record", property: "external_id" }, ["a"]), {
      mine: true,
      query: "?include=responses&include=suggestions&include=vectors",
      headers: d.annotator2.headers,
    });
    const record = mine.body.items[0]!.record;
    expect(record.responses).toEqual([]);
    expect(record.suggestions).toHaveLength(1);
    expect(record.vectors).toEqual({ [d.vectorName]: [1, 0, 0] });
    expect(record.metadata).toEqual({ genre: "news", quality: 0.9 });
    const admin = await search(terms({ entity: "record", property: "external_id" }, ["a"]), {
      query: "?include=responses",
      headers: d.admin.headers,
    });
    expect(admin.body.items[0]!.record.responses).toHaveLength(1);
    expect(admin.body.items[0]!.record.metadata).toEqual({ genre: "news", words: 4, quality: 0.9 });
    expect(admin.body.items[0]!.record).not.toHaveProperty("suggestions");
  });

  it("lets annotators use /me only; refuses outsiders and anonymous callers", async () => {
    expect(await search({}, { headers: d.annotator.headers })).toEqual({ status: 403, body: FORBIDDEN });
    expect((await search({}, { mine: true, headers: d.outsideAdmin.headers })).status).toBe(403);
    expect((await d.f.request("POST", `/me/datasets/${d.datasetId}/records/search`, { body: {}, headers: null })).status).toBe(401);
    expect((await d.f.request("POST", "/me/datasets/not-a-uuid/records/search", { body: {} })).status).toBe(422);
    expect((await d.f.request("POST", "/me/datasets/00000000-0000-4000-8000-000000000000/records/search", { body: {} })).status).toBe(404);
  });

  it("lists suggestion agents per question", async () => {
    const res = await d.f.request<{ items: { question: { id: string; name: string }; agents: string[] }[] }>(
      "GET",
      `/datasets/${d.datasetId}/records/search/suggestions/options`,
      { headers: d.annotator.headers },
    );
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([{ question: { id: d.questions.label.id, name: "label" }, agents: ["bert", "gpt"] }]);
    expect(
      (await d.f.request("GET", `/datasets/${d.datasetId}/records/search/suggestions/options`, { headers: d.outsideAdmin.headers })).status,
    ).toBe(403);
  });
});

const onPostgres = () => Boolean(process.env.TESSERA_TEST_DATABASE_URL);

describe("cleanup of the search index", () => {
  // SQLite's FTS5 table; the PostgreSQL index cleanup is tested in search/postgres-search.test.ts.
  it.skipIf(onPostgres())("deleting records and datasets removes their FTS rows and vectors", async () => {
    const count = (sqlText: string) => (server.ctx.store.sqlite!.prepare(sqlText).get() as { n: number }).n;
    const other = await richDataset(server);
    const created = await other.f.request<{ items: { id: string }[] }>("POST", `/datasets/${other.datasetId}/records/bulk`, {
      body: {
        items: [
          { fields: { text: "zebra crossing", context: "zebra" }, vectors: { emb: [1, 1, 1] } },
          { fields: { text: "zebra two" }, vectors: { emb: [1, 2, 1] } },
        ],
      },
    });
    await indexRecordTexts(server.ctx.store.db); // the text indexer runs after the import (search/text-index.ts)
    const ftsBefore = count("SELECT count(*) AS n FROM records_fts WHERE records_fts MATCH 'zebra'");
    const vectorsBefore = count("SELECT count(*) AS n FROM record_vectors");
    expect(ftsBefore).toBe(3);
    await other.f.request("DELETE", `/records/${created.body.items[0]!.id}`);
    await indexRecordTexts(server.ctx.store.db); // deletes reach the index file through the indexer thread (migration 0016)
    expect(count("SELECT count(*) AS n FROM records_fts WHERE records_fts MATCH 'zebra'")).toBe(1);
    expect(count("SELECT count(*) AS n FROM record_vectors")).toBe(vectorsBefore - 1);
    expect((await other.f.request("DELETE", `/datasets/${other.datasetId}`)).status).toBe(200);
    await indexRecordTexts(server.ctx.store.db);
    expect(count("SELECT count(*) AS n FROM records_fts WHERE records_fts MATCH 'zebra'")).toBe(0);
    expect(count("SELECT count(*) AS n FROM record_vectors")).toBe(vectorsBefore - 2);
  });
});
