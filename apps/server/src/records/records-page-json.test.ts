import { describe, expect, it } from "vitest";
import { serverForFile } from "../testing/fixtures.js";
import { loadDatasetSchema } from "./dataset-schema.js";
import { withIncludes, type Include } from "./read.js";
import { parseInclude } from "./access.js";
import { richDataset } from "./testing.js";
import { FULL_VIEW } from "./visibility.js";

const fx = serverForFile();

/** The body the records list gave before records-page-json.ts: Fastify's JSON.stringify of the page's objects. */
async function stringifiedPage(datasetId: string, offset: number, limit: number, include: Include): Promise<string> {
  const db = fx.server.ctx.db;
  const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", datasetId).executeTakeFirstOrThrow();
  const rows = await db
    .selectFrom("records")
    .selectAll()
    .where("dataset_id", "=", datasetId)
    .orderBy("seq")
    .offset(offset)
    .limit(limit)
    .execute();
  const total = (
    await db
      .selectFrom("records")
      .select((e) => e.fn.countAll<number>().as("n"))
      .where("dataset_id", "=", datasetId)
      .executeTakeFirstOrThrow()
  ).n;
  const items = await withIncludes(db, await loadDatasetSchema(db, dataset), rows, include, FULL_VIEW);
  return JSON.stringify({ items, total: Number(total) });
}

async function rawPage(datasetId: string, query: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${fx.server.url}/api/v1/datasets/${datasetId}/records${query}`, { headers: fx.owner });
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

describe("the records list's body with vectors spliced in as text", () => {
  it("is byte for byte the JSON of the page's records with every part: fields, metadata, responses, suggestions, two vectors", async () => {
    const d = await richDataset(fx.server);
    const second = await fx.vectorSettings(d.datasetId, { name: "second", title: "Second", dimensions: 3 });
    const ids = await fx.records(d.datasetId, [
      {
        external_id: "full",
        fields: { text: 'Ada Lovelace — naïve 日本 😀 "quoted" \\ back', context: "history" },
        metadata: { genre: "news", words: 4, quality: 0.5 },
        suggestions: [
          { question_id: d.questions.label.id, value: "positive", score: 0.9, agent: "model-a", type: "model" },
          { question_id: d.questions.multi.id, value: ["a", "c"], score: [0.25, 0.75], agent: "model-b", type: "model" },
        ],
        responses: [
          { user_id: d.annotator.id, status: "submitted", values: { label: { value: "negative" } } },
          { user_id: d.annotator2.id, status: "draft", values: { multi: { value: ["b"] }, comment: { value: "ok" } } },
        ],
        vectors: { [d.vectorName]: [0.049168, -0.016838, 0.000001], second: [1.5, -123.456, 1e-7] },
      },
      { external_id: "float32", fields: { text: "float32" }, vectors: { [d.vectorName]: [Math.fround(0.3), Math.fround(-0.7), 0] } },
      { external_id: "doubles", fields: { text: "doubles" }, vectors: { second: [1 / 3, -2 / 3, 0.1 + 0.2] } },
      { external_id: "none", fields: { text: "no vectors" }, metadata: { genre: "blog" } },
    ]);
    expect(ids).toHaveLength(4);
    for (const query of [
      "?include=responses&include=suggestions&include=vectors",
      "?include=vectors&offset=1&limit=2",
      `?include=vectors:${second.name}`,
    ]) {
      const got = await rawPage(d.datasetId, query);
      const params = new URLSearchParams(query.slice(1));
      const include = parseInclude({ include: params.getAll("include") });
      const offset = Number(params.get("offset") ?? 0);
      const limit = Number(params.get("limit") ?? 50);
      expect(got.status).toBe(200);
      expect(got.type).toBe("application/json; charset=utf-8");
      expect(got.text, query).toBe(await stringifiedPage(d.datasetId, offset, limit, include));
    }
    const all = JSON.parse((await rawPage(d.datasetId, "?include=vectors")).text) as { items: { vectors: Record<string, number[]> }[] };
    expect(all.items.map((r) => r.vectors)).toEqual([
      { [d.vectorName]: [0.049168, -0.016838, 0.000001], second: [1.5, -123.456, 1e-7] },
      { [d.vectorName]: [Math.fround(0.3), Math.fround(-0.7), 0] },
      { second: [1 / 3, -2 / 3, 0.1 + 0.2] },
      {},
    ]);
  }, 60_000);

  it("leaves the vectors out when they are not asked for, and answers an empty page", async () => {
    const d = await richDataset(fx.server);
    await fx.records(d.datasetId, [{ fields: { text: "one" }, vectors: { [d.vectorName]: [0.1, 0.2, 0.3] } }]);
    const plain = await rawPage(d.datasetId, "?include=responses");
    expect(plain.text).toBe(await stringifiedPage(d.datasetId, 0, 50, { responses: true, suggestions: false, vectors: null }));
    expect(plain.text).not.toContain("vectors");
    const empty = await rawPage(d.datasetId, "?include=vectors&offset=5");
    expect(JSON.parse(empty.text)).toEqual({ items: [], total: 1 });
  }, 60_000);
});
