import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { testDatabaseUrl } from "../testing/pg-test-database.js";
import { richDataset, recordItems, type RichDataset } from "../records/testing.js";

/**
 * PostgreSQL (issue 31): the server ranks a large dataset's frequent words ahead in the background once
 * its text settles (search/postgres-rank-ahead.ts), and text searches over HTTP answer the same before
 * and after. The embedded store ranks ahead in memory (search/sqlite-text.test.ts).
 */
const onPostgres = testDatabaseUrl() !== null;
type Result = { items: { record: { external_id: string } }[]; total: number; total_is_lower_bound?: boolean };

describe.skipIf(!onPostgres)("text search ranked ahead by the server (PostgreSQL only)", () => {
  let server: TestServer;
  let d: RichDataset;
  beforeAll(async () => {
    server = await startTestServer({ TESSERA_TEXT_TOTAL_BOUND: "700" });
    d = await richDataset(server);
    // 1,200 records: "cats" once in every other record, twice or more in every 7th, "dogs" once in the others.
    const items = recordItems(1200, "r", (i) => ({
      fields: { text: `Record ${i} about ${i % 2 === 0 ? "cats" : "dogs"}${i % 7 === 0 ? " cats".repeat(1 + (i % 5)) : ""}` },
    }));
    for (let i = 0; i < items.length; i += 400) {
      const res = await d.f.request("POST", `/datasets/${d.datasetId}/records/bulk`, { body: { items: items.slice(i, i + 400) } });
      expect(res.status).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  const pending = {
    and: [
      { type: "terms", scope: { entity: "response", property: "status" }, values: ["pending"] },
      { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
    ],
  };
  const searches = () =>
    Promise.all(
      ["cats", "dogs", "Record"].flatMap((q) =>
        ["?limit=10", "?limit=10&offset=300", "?limit=25&offset=20"].flatMap((page) =>
          [false, true].map(async (mine) => {
            const res = await d.f.request<Result>("POST", `${mine ? "/me" : ""}/datasets/${d.datasetId}/records/search${page}`, {
              body: { query: { text: { q } }, ...(mine ? { filters: pending } : {}) },
              headers: mine ? d.annotator.headers : d.f.owner,
            });
            expect(res.status).toBe(200);
            return { items: res.body.items.map((i) => i.record.external_id), total: res.body.total, bound: res.body.total_is_lower_bound };
          }),
        ),
      ),
    );

  it("answers the same before and after the server stored the ranking", async () => {
    const ranked = async () =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from text_ranked_ahead where dataset_id = ${d.datasetId}`.execute(
            server.ctx.store.db,
          )
        ).rows[0]!.n,
      );
    expect(await ranked()).toBe(0);
    const before = await searches();
    const deadline = Date.now() + 45_000;
    while ((await ranked()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(await ranked()).toBeGreaterThan(0); // "cats", "dogs", "record", "about" at least
    expect(await searches()).toEqual(before);
    // The first "cats" record is one that repeats it most (i % 7 === 0 and i % 5 === 4: 5 more).
    expect(before[0]!.items[0]).toBe("r-14");
  }, 90_000);
});
