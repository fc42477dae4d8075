import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { answeredCount, filterCount, filterTotal } from "./postgres-filter-total.js";
import { queryRows } from "./postgres-sql.js";
import { PostgresSearch } from "./postgres-search.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import {
  answerAndComplete,
  answerRecords,
  copyDataset,
  insertRecords,
  lateAnnotator,
  pageQuery,
  seedSearchData,
  TEST_FILTERS,
  completeWhere,
} from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

/** The test records: a list value in every 4th record; `rare` in 3 of 240; no quality in every 9th. */
const shape = (prefix: string) => (i: number) => ({
  external_id: `${prefix}-${i}`,
  fields: JSON.stringify({ text: `word ${i}` }),
  metadata: JSON.stringify({
    source: i % 4 === 0 ? ["news", "blog"] : ["news", "wiki", "forum"][i % 3],
    ...(i % 9 === 0 ? {} : { quality: i % 13 === 0 ? [0.1, (i % 10) / 10] : (i % 10) / 10 }),
    ...(i % 80 === 7 ? { rare: "yes" } : {}),
  }),
});

describe(`PostgreSQL bounded totals of metadata filters without text (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    ({ ids } = await seedSearchData(store));
    // Another dataset's records before and after (never counted; the walk starts at the dataset's first record).
    await insertRecords(store, ids.other, 40, shape("o"));
    const added = await insertRecords(store, ids.ds, 240, shape("d"));
    await insertRecords(store, ids.other, 40, shape("p"));
    await answerAndComplete(store, added, ids.u1);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  const meta = (name: string, values: unknown[]): SearchFilter => ({ type: "terms", scope: { entity: "metadata", name }, values });
  const quality: SearchFilter = { type: "range", scope: { entity: "metadata", name: "quality" }, ge: 0.25, le: 0.75 };
  const { pending, statusPending, submitted } = TEST_FILTERS;
  const answered = (values: unknown[]): SearchFilter => ({
    type: "terms",
    scope: { entity: "response_value", questionName: "label" },
    values,
  });
  const query = (filters: SearchFilter[], userId: string | null, datasetId: string = ids.ds): SearchQuery =>
    pageQuery(datasetId, filters, { userId });
  const exact = async (q: SearchQuery) => {
    const { sql, params } = filterCount(q, null, true);
    return Number((await queryRows<{ n: number | string }>(store.db, sql, params))[0]!.n);
  };

  it("counts as the exact count over records does, up to the bound, by the walk and by the GIN index", async () => {
    const paths = new Set<string>();
    let lower = 0;
    let empty = 0;
    const cases: [SearchFilter[], string | null, string][] = [
      [[pending, statusPending, meta("source", ["news"]), quality], ids.u1, ids.ds],
      [[pending, statusPending, meta("source", ["blog"])], ids.u1, ids.ds],
      [[meta("source", ["wiki", "forum"]), quality], null, ids.ds],
      [[quality, meta("source", ["news"])], ids.u2, ids.ds],
      [[meta("rare", ["yes"])], null, ids.ds],
      [[submitted, meta("source", ["news"])], ids.u1, ids.ds],
      [[meta("source", ["nowhere"])], null, ids.ds],
      [[meta("source", ["news"]), quality], null, ids.other],
      // Only answered records pass: counted from the records with responses (the caller's on /me).
      [[answered(["pos"])], null, ids.ds],
      [[answered(["pos", "neg"]), meta("genre", ["forum"])], null, ids.ds],
      [[answered(["neg"])], ids.u2, ids.ds],
      [[answered(["neg"])], ids.u1, ids.ds],
      [[submitted, meta("source", ["wiki"])], null, ids.ds],
      [[answered(["pos"])], null, ids.other],
    ];
    for (const [filters, userId, datasetId] of cases) {
      const q = query(filters, userId, datasetId);
      const n = await exact(q);
      if (n === 0) empty++;
      for (const bound of [3, 25, 1000])
        for (const walkRecords of [undefined, 10, 1]) {
          const got = await filterTotal(store.db, q, bound, { walkRecords });
          const expected = n > bound ? { total: bound, totalIsLowerBound: true } : { total: n };
          expect(
            { total: got.total, ...(got.totalIsLowerBound ? { totalIsLowerBound: true } : {}) },
            `${JSON.stringify(filters)} ${bound} ${walkRecords}`,
          ).toEqual(expected);
          paths.add(got.path);
          if (got.totalIsLowerBound) lower++;
        }
    }
    expect([...paths].sort()).toEqual(["answered", "index", "walk"]);
    expect(lower).toBeGreaterThan(10);
    expect(empty).toBeGreaterThanOrEqual(1);
    // The walk decides when the bound is passed within its records, or when it read the whole dataset; else the GIN path counts.
    const news = query([meta("source", ["news"])], null);
    expect((await filterTotal(store.db, news, 3, { walkRecords: 20 })).path).toBe("walk");
    expect((await filterTotal(store.db, news, 25, { walkRecords: 20 })).path).toBe("index");
    expect((await filterTotal(store.db, news, 1000, { walkRecords: 1000 })).path, "the whole dataset read").toBe("walk");
    expect((await filterTotal(store.db, query([meta("rare", ["yes"])], null), 1, { walkRecords: 50 })).path).toBe("index");
  });

  it("walks from the first record of the one status kept: a completed head is not read", async () => {
    // The dataset's first 60 records completed (a team's first Submits), then every 10th.
    const dataset = await copyDataset(store, ids.ds);
    const added = await insertRecords(store, dataset, 120, shape("h"));
    await completeWhere(store, added, (i) => i < 60 || i % 10 === 0);
    const statusCompleted: SearchFilter = { type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] };
    // Bound 1,000 with 61 rows: the 60 records from the first pending one are all the walk reads (exact); from the first record not.
    for (const [filters, runs] of [
      [
        [pending, statusPending, meta("source", ["news"])],
        [
          [3, 40],
          [1000, 61],
        ],
      ],
      [
        [statusPending, meta("source", ["news", "wiki"]), quality],
        [
          [3, 40],
          [1000, 61],
        ],
      ],
      [[statusCompleted, meta("source", ["news"])], [[3, 40]]],
    ] as const) {
      const q = query([...filters], ids.u1, dataset);
      const n = await exact(q);
      expect(n).toBeGreaterThan(3);
      for (const [bound, walkRecords] of runs) {
        const got = await filterTotal(store.db, q, bound, { walkRecords });
        expect(got, `${JSON.stringify(filters)} ${bound}`).toEqual(
          n > bound ? { total: bound, totalIsLowerBound: true, path: "walk" } : { total: n, path: "walk" },
        );
      }
    }
    // The queue's 40 records from the first pending one hold 4 of `news` (every 3rd is news), so the walk decides "3+"; from the
    // dataset's first record it read 40 completed records, none passing, and the GIN path counted instead.
    expect(
      await filterTotal(store.db, query([pending, statusPending, meta("source", ["news"])], ids.u1, dataset), 3, { walkRecords: 40 }),
    ).toEqual({ total: 3, totalIsLowerBound: true, path: "walk" });
    // A status no record has: nothing to walk, exact 0.
    const empty = await copyDataset(store, ids.ds);
    await insertRecords(store, empty, 5, shape("e"));
    expect(await filterTotal(store.db, query([statusCompleted, meta("source", ["news"])], null, empty), 3, { walkRecords: 2 })).toEqual({
      total: 0,
      path: "walk",
    });
  });

  it("gives the search's total: the filter bound below the total bound, raised to the end of the page", async () => {
    const search = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false });
    const q = query([meta("source", ["news", "wiki"])], null);
    const n = await exact(q);
    expect(n).toBeGreaterThan(30);
    expect(await search.search({ ...q, totalBound: 10_000, filterBound: 20 })).toMatchObject({ total: 20, totalIsLowerBound: true });
    expect(await search.search({ ...q, totalBound: 10, filterBound: 20 })).toMatchObject({ total: 10, totalIsLowerBound: true });
    expect(await search.search({ ...q, offset: 25, limit: 5, totalBound: 10_000, filterBound: 20 })).toMatchObject({
      total: 30,
      totalIsLowerBound: true,
    });
    const all = await search.search({ ...q, totalBound: 10_000, filterBound: null });
    expect(all.total).toBe(n);
    expect(all.totalIsLowerBound).toBeUndefined();
    // Without a metadata filter the route sets no total bound: exact whatever the filter bound.
    const queue = await search.search({ ...query([pending, statusPending], ids.u1), totalBound: null, filterBound: 5 });
    expect(queue.total).toBe(await exact(query([pending, statusPending], ids.u1)));
    expect(queue.totalIsLowerBound).toBeUndefined();
  });
});

describe.skipIf(!onPostgres)("PostgreSQL: the count of the caller's answered records under statistics taken before they answered", () => {
  const { submitted } = TEST_FILTERS;

  it("counts the caller's answered records in one pass over their responses, whatever the statistics say", async () => {
    // Statistics taken before a new annotator answered (autovacuum off: they stay so), then 1,540 responses of theirs: the
    // planner's estimate of their responses is 1. With `DISTINCT` over them a nested loop read the aggregate again for each
    // matching response (26K rows compared for their 40 drafts here; 150M rows, 24.7 s for 10,001 Submits at 200K records).
    const store = await openTestPostgresStore();
    try {
      const { ids } = await seedSearchData(store);
      const dataset = await copyDataset(store, ids.ds);
      const added: { id: string; seq: number }[] = [];
      for (let k = 0; k < 4; k++) added.push(...(await insertRecords(store, dataset, 5000, shape(`s${k}`))));
      const user = await lateAnnotator(store);
      await answerRecords(store, added.slice(0, 1500), user, "submitted");
      await answerRecords(store, added.slice(1500, 1540), user, "draft");
      for (const [filters, expected] of [
        [[submitted], 1500],
        [[{ type: "terms", scope: { entity: "response_status" }, values: ["draft", "discarded"] } as SearchFilter], 40],
      ] as const) {
        const q = pageQuery(dataset, [...filters], { userId: user });
        expect(await filterTotal(store.db, q, 10_000)).toEqual({ total: expected, path: "answered" });
        const { sql, params } = answeredCount(q, 10_000);
        const [row] = await queryRows<{ "QUERY PLAN": unknown }>(store.db, `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
        const plan = typeof row!["QUERY PLAN"] === "string" ? row!["QUERY PLAN"] : JSON.stringify(row!["QUERY PLAN"]);
        // Rows a join compared and dropped, over the whole plan: none beyond a few per response (not a product of them).
        const removed = [...plan.matchAll(/"Rows Removed by Join Filter": (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
        expect(removed, JSON.stringify(filters)).toBeLessThan(1500);
        // The caller's responses read once (the response filter's lookup is the same row: responses_record_user_uq), no aggregate of them.
        expect([...plan.matchAll(/"Relation Name": "responses"/g)].length, JSON.stringify(filters)).toBe(1);
        expect(plan).not.toMatch(/"Node Type": "(Unique|Hash Aggregate)"|"Strategy": "(Hashed|Sorted)"/);
      }
    } finally {
      await store.close();
    }
  }, 60_000);
});
