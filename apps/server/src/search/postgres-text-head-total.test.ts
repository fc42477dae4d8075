import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { Store } from "../db/store.js";
import { loggedDatabase, openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { PostgresRankAhead } from "./postgres-rank-ahead.js";
import { PostgresTextHeadIndex } from "./postgres-text-head-index.js";
import { PostgresText } from "./postgres-text.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { completeRecords, copyDataset, insertRecords, seedSearchData, textQuery, workQueue, TEST_FILTERS } from "./search-port.suite.js";

const onPostgres = testDatabaseUrl() !== null;

const { pending, statusPending } = TEST_FILTERS;
const QUEUE = [pending, statusPending];

/** Record i's text: `beta` in every record, `delta` in every 2nd, `alpha` in every 3rd, `omega` in every 60th. */
const textOf = (i: number) =>
  [i % 3 === 0 ? "alpha beta" : "beta", i % 2 === 0 ? "delta" : "epsilon", i % 60 === 0 ? "omega" : "zeta", `filler${i % 9}`].join(" ");

/** The bounded count in SQL (postgres-sql.ts textCount): the first `limit + 1` passing records. */
const COUNT_SQL = /SELECT count\(\*\) AS n FROM \(SELECT 1 FROM/;

describe.skipIf(!onPostgres)("PostgreSQL text search: a word's total in the pending queue from the completed head in memory", () => {
  let store: Store;
  let counted: Kysely<DB>;
  const statements: string[] = [];
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  /** A head of 400 completed records, some completed further on, some answered by u1 after it. */
  let ds: string;
  /** A head of 300 completed records and nothing else completed or answered. */
  let clean: string;
  /** The same texts, nothing completed. */
  let other: string;
  let added: { id: string; seq: number }[];
  let rankAhead: PostgresRankAhead;
  let index: PostgresTextHeadIndex;
  beforeAll(async () => {
    store = await openTestPostgresStore();
    counted = loggedDatabase(store, statements);
    ({ ids } = await seedSearchData(store));
    // Three datasets of the same texts (`summary`: alpha delta in every 5th record).
    ds = await copyDataset(store, ids.ds);
    clean = await copyDataset(store, ids.ds);
    other = await copyDataset(store, ids.ds);
    const texts = (d: string, n: number) =>
      insertRecords(store, d, n, (i) => ({
        external_id: `${d}-${i}`,
        fields: JSON.stringify({ text: textOf(i), summary: i % 5 === 0 ? "alpha delta" : "filler" }),
        metadata: "null",
      }));
    added = await texts(ds, 900);
    const cleanRecords = await texts(clean, 600);
    await texts(other, 600);
    await workQueue(store, added, 400, ids.u1);
    await completeRecords(store, cleanRecords.slice(0, 300));
    rankAhead = new PostgresRankAhead(store.db, { minRecords: 5 });
    index = new PostgresTextHeadIndex(store.db, { minRecords: 100, minHead: 100, minStep: 10, stepRecords: 10_000 });
    for (const d of [ds, clean, other]) {
      expect(await rankAhead.rank(d)).toBe(true);
      while (await index.step(d));
    }
  }, 120_000);
  afterAll(async () => {
    await counted?.destroy();
    await store?.close();
  });

  const query = (q: string, datasetId: string, filters: SearchFilter[], totalBound: number, offset = 0, limit = 10): SearchQuery =>
    textQuery({ datasetId, userId: ids.u1, filters }, q, null, { offset, limit, totalBound });
  const WORDS = ["beta", "delta", "alpha", "omega", "epsilon", "nothing", ""];
  /**
   * Pages and totals of each word with the head index against the plain path (no ranking ahead: ts_rank and the SQL count);
   * the SQL counts run with the head index and without it (totalAhead's bound only).
   */
  const compare = async (datasetId: string, filters: SearchFilter[], totalBound: number) => {
    const counts = { head: 0, ahead: 0 };
    for (const word of WORDS)
      for (const [offset, limit] of [
        [0, 10],
        [20, 10],
      ] as const) {
        const q = query(word, datasetId, filters, totalBound, offset, limit);
        const expected = await new PostgresText(store.db).search(q);
        statements.length = 0;
        const ahead = await new PostgresText(counted, undefined, rankAhead).search(q);
        counts.ahead += statements.filter((s) => COUNT_SQL.test(s)).length;
        statements.length = 0;
        const got = await new PostgresText(counted, undefined, rankAhead, undefined, true, { headIndex: index }).search(q);
        counts.head += statements.filter((s) => COUNT_SQL.test(s)).length;
        expect(got, `${word} ${offset} ${limit} ${totalBound}`).toEqual(expected);
        expect(ahead, `${word} ${offset} ${limit} ${totalBound}`).toEqual(expected);
      }
    return counts;
  };

  it("bounds a word's total without counting it in SQL where the completed records alone left it to the count", async () => {
    // `delta` (every 2nd record's text, every 5th's summary: 540 records): 240 in the head of 400 and up to 64 completed
    // after it, 75 pending answered by u1: at least 161 pending, where 540 - 464 completed - 75 answered told nothing.
    const bounded = await compare(ds, QUEUE, 100);
    expect(bounded.head).toBeLessThan(bounded.ahead);
    const got = await new PostgresText(counted, undefined, rankAhead, undefined, true, { headIndex: index }).search(
      query("delta", ds, QUEUE, 100),
    );
    expect(got.total).toBe(100);
    expect(got.totalIsLowerBound).toBe(true);
    // Totals below the bound (exact): the SQL count, the same answers.
    await compare(ds, QUEUE, 10_000);
    // The record status alone (no caller's answers to subtract), another dataset without a head.
    await compare(ds, [statusPending], 100);
    await compare(other, QUEUE, 100);
  });

  it("gives exact totals without the SQL count when every completed record is in the indexed head and none is answered", async () => {
    const exact = await compare(clean, [statusPending], 10_000);
    // Only `nothing` (no ranking ahead, both pages) is counted in SQL; without the index every ranked word too.
    expect(exact).toEqual({ head: 2, ahead: 2 + 2 * 5 });
  });

  it("leaves a moved head and a deleted record to the other paths, with the same answers", async () => {
    // A record of the head pending again: the head ends before it.
    await store.db.updateTable("records").set({ status: "pending" }).where("id", "=", added[150]!.id).execute();
    await compare(ds, QUEUE, 100);
    // A deleted record moves the text version: the ranking and the index are of the old one until read again.
    await store.db.deleteFrom("records").where("id", "=", added[420]!.id).execute();
    await compare(ds, QUEUE, 100);
    expect(await rankAhead.rank(ds)).toBe(true);
    await compare(ds, QUEUE, 100);
  });
});
