import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { richDataset, recordItems, type RichDataset } from "../records/testing.js";

/**
 * Text search totals past TESSERA_TEXT_TOTAL_BOUND (issue 31): counted up to the bound, then answered
 * as `total` = the bound (or the page's end) with `total_is_lower_bound: true`; the pages themselves
 * are unchanged, so a client paging until an empty page (the official SDK) gets every record.
 */
let server: TestServer;
let d: RichDataset;
type Result = { items: { record: { external_id: string } }[]; total: number; total_is_lower_bound?: boolean };

beforeAll(async () => {
  server = await startTestServer({ TESSERA_TEXT_TOTAL_BOUND: "5" });
  d = await richDataset(server);
  // 24 records: "cats" in the 12 even ones, "dogs" in the odd ones; "rare" in 3 of them.
  const items = recordItems(24, "r", (i) => (i % 8 === 0 ? { fields: { text: `Record number ${i} about cats, rare` } } : {}));
  const res = await d.f.request("POST", `/datasets/${d.datasetId}/records/bulk`, { body: { items } });
  expect(res.status).toBe(201);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

const search = (q: string, query = "", options: { mine?: boolean; filters?: unknown } = {}) =>
  d.f.request<Result>("POST", `${options.mine ? "/me" : ""}/datasets/${d.datasetId}/records/search${query}`, {
    body: { query: { text: { q } }, ...(options.filters ? { filters: options.filters } : {}) },
    headers: options.mine ? d.annotator.headers : d.f.owner,
  });

describe("text search total bound", () => {
  it("answers a total above the bound as the bound with total_is_lower_bound, and an exact total below it without", async () => {
    const common = await search("cats", "?limit=2");
    expect(common.status).toBe(200);
    expect(common.body.items).toHaveLength(2);
    expect(common.body.total).toBe(5);
    expect(common.body.total_is_lower_bound).toBe(true);

    const rare = await search("rare", "?limit=2");
    expect(rare.body.total).toBe(3);
    expect(rare.body).not.toHaveProperty("total_is_lower_bound");

    // The annotator's queue (pending filters) takes the same bound.
    const pending = {
      and: [
        { type: "terms", scope: { entity: "response", property: "status" }, values: ["pending"] },
        { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
      ],
    };
    const queue = await search("dogs", "?limit=1", { mine: true, filters: pending });
    expect(queue.status).toBe(200);
    expect(queue.body).toMatchObject({ total: 5, total_is_lower_bound: true });
    // A metadata filter with it (counted in SQL).
    const metadata = await search("cats", "?limit=1", {
      filters: { and: [{ type: "range", scope: { entity: "metadata", metadata_property: "quality" }, le: 1 }] },
    });
    expect(metadata.body.total).toBe(0);
    expect(metadata.body).not.toHaveProperty("total_is_lower_bound");
  });

  it("counts at least to the end of the page asked, and pages until an empty page find every match (as the SDK iterates)", async () => {
    const deep = await search("cats", "?offset=6&limit=3");
    expect(deep.body.items).toHaveLength(3);
    expect(deep.body).toMatchObject({ total: 9, total_is_lower_bound: true });
    const last = await search("cats", "?offset=9&limit=5");
    expect(last.body.items).toHaveLength(3);
    expect(last.body.total).toBe(12);
    expect(last.body).not.toHaveProperty("total_is_lower_bound");

    const seen: string[] = [];
    for (let offset = 0; ; offset += 2) {
      const page = await search("cats", `?offset=${offset}&limit=2`);
      expect(page.status).toBe(200);
      if (page.body.items.length === 0) break;
      seen.push(...page.body.items.map((i) => i.record.external_id));
    }
    expect(seen.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `r-${i * 2}`).sort());
  });
});

describe("metadata filter total bound", () => {
  it("stops a metadata filter's total at the bound on both stores, and pages find every match", async () => {
    const ds = await richDataset(server);
    // 12 "news" records, 3 "blog" ones.
    const items = recordItems(15, "m", (i) => ({ metadata: { genre: i < 12 ? "news" : "blog" } }));
    expect((await ds.f.request("POST", `/datasets/${ds.datasetId}/records/bulk`, { body: { items } })).status).toBe(201);
    const byGenre = (genre: string, query: string) =>
      ds.f.request<Result>("POST", `/datasets/${ds.datasetId}/records/search${query}`, {
        body: {
          query: {},
          filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "genre" }, values: [genre] }] },
        },
        headers: ds.f.owner,
      });
    const news = await byGenre("news", "?limit=2");
    expect(news.status).toBe(200);
    expect(news.body.items).toHaveLength(2);
    // One rule for both stores (docs/api.md, "Totals"): the embedded store's exact in-memory count answered as the bound too.
    expect(news.body).toMatchObject({ total: 5, total_is_lower_bound: true });
    const blog = await byGenre("blog", "?limit=2");
    expect(blog.body.total).toBe(3);
    expect(blog.body).not.toHaveProperty("total_is_lower_bound");
    // Paging until an empty page finds all 12 (the total is only a count).
    const seen: string[] = [];
    for (let offset = 0; ; offset += 5) {
      const page = await byGenre("news", `?limit=5&offset=${offset}`);
      if (page.body.items.length === 0) break;
      seen.push(...page.body.items.map((r) => r.record.external_id));
    }
    expect(new Set(seen).size).toBe(12);
    // Without a metadata filter the total stays exact.
    const all = await ds.f.request<Result>("POST", `/datasets/${ds.datasetId}/records/search?limit=1`, {
      body: { query: {} },
      headers: ds.f.owner,
    });
    expect(all.body.total).toBe(15);
    expect(all.body).not.toHaveProperty("total_is_lower_bound");
  });
});
