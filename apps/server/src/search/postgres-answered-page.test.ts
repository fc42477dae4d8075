import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { answeredPage, answeredWalkable, answeredWalkSql } from "./postgres-answered-page.js";
import { filterCount } from "./postgres-filter-total.js";
import { Builder, queryRows } from "./postgres-sql.js";
import { PostgresSearch } from "./postgres-search.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import {
  answerRecords,
  copyDataset,
  insertRecords,
  lateAnnotator,
  pageQuery,
  seedSearchData,
  TEST_FILTERS,
  answerWhere,
  completeWhere,
} from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

const shape = (prefix: string) => (i: number) => ({
  external_id: `${prefix}-${i}`,
  fields: JSON.stringify({ text: `word ${i}` }),
  metadata: JSON.stringify({ source: ["news", "wiki", "forum"][i % 3] }),
});

const { submitted, completed } = TEST_FILTERS;
const drafts: SearchFilter = { type: "terms", scope: { entity: "response_status" }, values: ["draft", "discarded"] };
const news: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "source" }, values: ["news"] };

/** The page and total the slow way: every record of the dataset tested with the filters, in seq order, counted over `records`. */
async function reference(store: Store, q: SearchQuery): Promise<{ ids: string[]; total: number }> {
  const b = new Builder(q.userId);
  const where = [`r.dataset_id = ${b.p(q.datasetId)}`, ...q.filters.map((f) => b.filter(f))];
  const rows = await queryRows<{ id: string }>(
    store.db,
    `SELECT r.id FROM records r WHERE ${where.join(" AND ")} ORDER BY r.seq LIMIT ${b.p(q.limit)} OFFSET ${b.p(q.offset)}`,
    b.params,
  );
  const count = filterCount(q, null, true);
  const total = Number((await queryRows<{ n: number | string }>(store.db, count.sql, count.params))[0]!.n);
  return { ids: rows.map((r) => r.id), total };
}

describe(`PostgreSQL: the caller's Submitted list from the records in seq order (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  let dataset: string;
  let records: { id: string; seq: number }[];
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    ({ ids } = await seedSearchData(store));
    dataset = await copyDataset(store, ids.ds);
    // Another dataset's records before and after, answered by the caller too (never listed here).
    const other = await insertRecords(store, ids.other, 60, shape("o"));
    records = await insertRecords(store, dataset, 300, shape("d"));
    other.push(...(await insertRecords(store, ids.other, 60, shape("p"))));
    await answerRecords(store, other, ids.u1, "submitted");
    // The caller: the first 40 records (a contiguous head), then every 7th; drafts on every 11th of the rest; u2 every 2nd.
    const mine = records.filter((_, i) => i < 40 || i % 7 === 0);
    await answerRecords(store, mine, ids.u1, "submitted");
    await answerRecords(
      store,
      records.filter((r, i) => i % 11 === 5 && !mine.includes(r)),
      ids.u1,
      "draft",
    );
    await answerWhere(store, records, (i) => i % 2 === 0, ids.u2, "submitted");
    await completeWhere(store, records, (i) => i % 3 === 0);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  it("gives the page and total of the slow way, walking the records when the page lies in the walk", async () => {
    const search = new PostgresSearch(store.db, { vectorSearch: false });
    const cases: [SearchFilter[], string][] = [
      [[submitted], ids.u1],
      [[submitted, completed], ids.u1],
      [[submitted, news], ids.u1],
      [[drafts], ids.u1],
      [[submitted], ids.u2],
      [[submitted, { ...completed, values: ["pending"] }], ids.u2],
    ];
    for (const [filters, user] of cases)
      for (const [offset, limit] of [
        [0, 10],
        [7, 20],
        [35, 10],
        [90, 10],
        [250, 10],
      ] as const) {
        const q: SearchQuery = { ...pageQuery(dataset, filters, { userId: user }), offset, limit };
        expect(answeredWalkable(q)).toBe(true);
        const expected = await reference(store, q);
        const got = await search.search(q);
        expect({ ids: got.hits.map((h) => h.recordId), total: got.total }, JSON.stringify([filters, user, offset])).toEqual(expected);
        expect(got.totalIsLowerBound).toBeUndefined();
      }
    // Full pages within the walk's first 2,000 records; pages beyond the caller's last records or not full fell back.
    expect(search.answeredPaths.walk).toBeGreaterThan(10);
    expect(search.answeredPaths.plain).toBeGreaterThan(0);
  });

  it("gives up when the page does not fill within the records walked", async () => {
    const q = pageQuery(dataset, [submitted], { userId: ids.u1 });
    // The first 40 records are the caller's: a page of 10 from the first 10 records.
    expect((await answeredPage(store.db, q, 10))?.map((r) => r.id)).toEqual(records.slice(0, 10).map((r) => r.id));
    expect(await answeredPage(store.db, { ...q, offset: 35 }, 44)).toBeNull();
    expect((await answeredPage(store.db, { ...q, offset: 35 }, 71))?.map((r) => r.id)).toEqual(
      (await reference(store, { ...q, offset: 35 })).ids,
    );
  });

  it("applies only to the caller's answered records without text, vector or sort", () => {
    const q = pageQuery(dataset, [submitted], { userId: ids.u1 });
    expect(answeredWalkable({ ...q, userId: null })).toBe(false);
    expect(answeredWalkable({ ...q, filters: [{ ...submitted, values: ["submitted", "pending"] }] })).toBe(false);
    expect(answeredWalkable({ ...q, text: { q: "word", field: null } })).toBe(false);
    expect(answeredWalkable({ ...q, sort: [{ scope: { entity: "record", property: "inserted_at" }, order: "asc" }] })).toBe(false);
    expect(answeredWalkable({ ...q, filters: [news] })).toBe(false);
  });
});

describe.skipIf(!onPostgres)("PostgreSQL: the caller's Submitted page under statistics taken before they answered", () => {
  it("reads the caller's responses of the records up to the page only, not all of them", async () => {
    const store = await openTestPostgresStore();
    try {
      const { ids } = await seedSearchData(store);
      const dataset = await copyDataset(store, ids.ds);
      const added: { id: string; seq: number }[] = [];
      for (let k = 0; k < 2; k++) added.push(...(await insertRecords(store, dataset, 5000, shape(`s${k}`))));
      const user = await lateAnnotator(store);
      // 3,000 Submits: every 3rd record (a team of 3 sharing the queue).
      await answerWhere(store, added, (i) => i % 3 === 0, user, "submitted");
      const q = pageQuery(dataset, [submitted], { userId: user });
      const { sql, params } = answeredWalkSql(q, 2000);
      const [row] = await queryRows<{ "QUERY PLAN": unknown }>(store.db, `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
      const plan = typeof row!["QUERY PLAN"] === "string" ? row!["QUERY PLAN"] : JSON.stringify(row!["QUERY PLAN"]);
      type Node = { "Relation Name"?: string; "Actual Rows": number; "Actual Loops": number; Plans?: Node[] };
      const nodes = (n: Node): Node[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
      const all = nodes((JSON.parse(plan) as { Plan: Node }[])[0]!.Plan);
      const read = (relation: string) =>
        all.filter((n) => n["Relation Name"] === relation).reduce((sum, n) => sum + n["Actual Rows"] * n["Actual Loops"], 0);
      // The page's 10 records lie in the first 28: their 10 responses, not the caller's 3,000 (nor a hash of them).
      // (Actual Rows is an average per loop, rounded: 0.36 of 28 loops.)
      expect(Math.round(read("responses"))).toBe(10);
      expect(read("records")).toBeLessThan(40);
      expect(plan).not.toMatch(/"Node Type": "Hash"/);
      const search = new PostgresSearch(store.db, { vectorSearch: false });
      const got = await search.search(q);
      expect(search.answeredPaths).toEqual({ walk: 1, plain: 0 });
      const expected = await reference(store, q);
      expect({ ids: got.hits.map((h) => h.recordId), total: got.total }).toEqual(expected);
      expect(expected.total).toBe(3334);
    } finally {
      await store.close();
    }
  }, 60_000);
});
