import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { ANSWERED_MAX } from "./answered-filter.js";
import { PostgresRankAhead } from "./postgres-rank-ahead.js";
import { queryRows, textCount } from "./postgres-sql.js";
import { answeredTextCount, answeredTotal } from "./postgres-text-answered-total.js";
import { AnsweredSeqs, answeredSeqsSql } from "./postgres-answered-seqs.js";
import { PostgresText } from "./postgres-text.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import {
  answerRecords,
  completeRecords,
  copyDataset,
  insertRecords,
  lateAnnotator,
  pageQuery,
  seedSearchData,
  TEST_FILTERS,
} from "./search-port.suite.js";

// A real PostgreSQL (TESSERA_TEST_DATABASE_URL, stage 60): the words ranked ahead and the text rows of thousands of records
// (on PGlite neither was there for these set-ups), as postgres-rank-longer.test.ts.
const onPostgres = testDatabaseUrl() !== null;

const RECORDS = 5_000;
const BOUND = 1_000;
/** Records of the plan test's dataset. */
const LATE_RECORDS = 40_000;

/** `common` in every record (twice in every 3rd), `rare` in every 10th (twice in every 30th), `odd` in every 7th. */
const shape = (prefix: string) => (i: number) => ({
  external_id: `${prefix}-${i}`,
  fields: JSON.stringify({
    text: `common ${i % 3 === 0 ? "common " : ""}${i % 10 === 0 ? "rare " : ""}${i % 30 === 0 ? "rare " : ""}${i % 7 === 0 ? "odd" : "filler"} n${i}`,
    summary: `sum${i % 5}`,
  }),
  metadata: JSON.stringify({ source: ["news", "wiki", "forum"][i % 3] }),
});

const { submitted, completed } = TEST_FILTERS;
const news: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "source" }, values: ["news"] };

/** The exact total the slow way (records joined with their fields' text rows, every filter per record), bounded as the API bounds it. */
async function referenceTotal(store: Store, q: SearchQuery, bound: number): Promise<{ total: number; totalIsLowerBound?: true }> {
  const { sql, params } = textCount(q, null, true);
  const n = Number((await queryRows<{ n: number | string }>(store.db, sql, params))[0]!.n);
  return n > bound ? { total: bound, totalIsLowerBound: true } : { total: n };
}

/** answerRecords 250 at a time (PGlite's protocol parser fails on one insert of thousands of rows). */
async function answer(store: Store, records: { id: string }[], userId: string, status: "submitted" | "draft"): Promise<void> {
  for (let i = 0; i < records.length; i += 250) await answerRecords(store, records.slice(i, i + 250), userId, status);
}

describe.skipIf(!onPostgres)("PostgreSQL: a text search of a caller with more than ANSWERED_MAX answered records", () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  /** A dataset where u1 answered the first records (a contiguous head), one where u1 answered every 2nd (spread). */
  let head: string;
  let spread: string;
  beforeAll(async () => {
    store = await openTestPostgresStore();
    ({ ids } = await seedSearchData(store));
    // The caller's answers in another dataset too (never counted here).
    await answer(store, await insertRecords(store, ids.other, 300, shape("o")), ids.u1, "submitted");
    head = await copyDataset(store, ids.ds);
    spread = await copyDataset(store, ids.ds);
    const headRecords = await insertRecords(store, head, RECORDS, shape("h"));
    const spreadRecords = await insertRecords(store, spread, RECORDS, shape("s"));
    await answer(store, headRecords.slice(0, ANSWERED_MAX + 400), ids.u1, "submitted");
    await answer(
      store,
      spreadRecords.filter((_, i) => i % 2 === 0),
      ids.u1,
      "submitted",
    );
    // Another annotator's Submits, drafts of the caller, completed records.
    for (const records of [headRecords, spreadRecords]) {
      await answer(
        store,
        records.filter((_, i) => i % 3 === 1),
        ids.u2,
        "submitted",
      );
      await answer(
        store,
        records.filter((_, i) => i % 2 === 1 && i > ANSWERED_MAX + 400 && i % 5 === 0),
        ids.u1,
        "draft",
      );
      const done = records.filter((_, i) => i % 4 === 0);
      for (let i = 0; i < done.length; i += 250) await completeRecords(store, done.slice(i, i + 250));
    }
    const rankAhead = new PostgresRankAhead(store.db, { minRecords: 5, listLength: 64 });
    for (const ds of [head, spread]) {
      await rankAhead.rank(ds);
      expect((await rankAhead.lookup(ds, "rare"))?.records).toBe(RECORDS / 10);
    }
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it("gives the slow way's page, scores and bounded total, both shapes, from the caller's responses' record ids", async () => {
    const rankAhead = new PostgresRankAhead(store.db, { minRecords: 5, listLength: 64 });
    for (const dataset of [head, spread]) {
      const fast = new PostgresText(store.db, undefined, rankAhead);
      const slow = new PostgresText(store.db, undefined, null, undefined, false);
      for (const word of ["common", "rare", "odd", "absent"])
        for (const filters of [[submitted], [submitted, news], [completed, submitted]])
          for (const [offset, limit] of [
            [0, 10],
            [20, 10],
          ] as const) {
            const q: SearchQuery = { ...pageQuery(dataset, filters, { userId: ids.u1, text: word }), offset, limit, totalBound: 10_000 };
            const before = fast.answeredAhead;
            const got = await fast.search(q);
            const expected = await slow.search(q);
            const label = JSON.stringify([dataset === head ? "head" : "spread", word, filters, offset]);
            expect(
              got.hits.map((h) => [h.recordId, h.score]),
              label,
            ).toEqual(expected.hits.map((h) => [h.recordId, h.score]));
            // Answered here: bounded at the filter bound (1,000), as before; else by the other paths, at the total bound.
            const total = await referenceTotal(store, q, fast.answeredAhead > before ? BOUND : 10_000);
            expect({ total: got.total, lower: got.totalIsLowerBound ?? false }, label).toEqual({
              total: total.total,
              lower: total.totalIsLowerBound ?? false,
            });
          }
      // Every word ranked ahead, answered here from its ranking (the page) and the responses' ids (the total).
      expect(fast.answeredAhead).toBeGreaterThan(0);
    }
  });

  it("gives the slow way's page, scores and total of a phrase, the status filter tested on the caller's records in memory", async () => {
    for (const dataset of [head, spread])
      for (const window of [64, 1_000]) {
        const fast = new PostgresText(store.db, undefined, null, window);
        const slow = new PostgresText(store.db, undefined, null, window, false);
        for (const phrase of ["common rare", "rare odd", "odd absent"])
          for (const filters of [[submitted], [submitted, news], [completed, submitted]])
            for (const [offset, limit] of [
              [0, 10],
              [20, 10],
            ] as const) {
              const q: SearchQuery = {
                ...pageQuery(dataset, filters, { userId: ids.u1, text: phrase }),
                offset,
                limit,
                totalBound: 10_000,
              };
              const label = JSON.stringify([dataset === head ? "head" : "spread", window, phrase, filters, offset]);
              const got = await fast.search(q);
              const expected = await slow.search(q);
              expect(
                got.hits.map((h) => [h.recordId, h.score]),
                label,
              ).toEqual(expected.hits.map((h) => [h.recordId, h.score]));
              expect({ total: got.total, lower: got.totalIsLowerBound ?? false }, label).toEqual({
                total: expected.total,
                lower: expected.totalIsLowerBound ?? false,
              });
            }
        // The caller's answered records read once for all of them, the status filter tested on them (but with the completed
        // records' filter: those records' few buckets, statusSearch).
        expect(fast.answeredSeqs.reads).toBe(1);
        expect(fast.answeredWindowed).toBe(3 * 2 * 2);
      }
  }, 180_000);

  it("counts the caller's answered matches of one dataset only, exact up to the bound", async () => {
    const answered = new AnsweredSeqs(store.db);
    const count = async (q: SearchQuery, limit: number | null) => {
      const seqs = await answered.seqs(q.datasetId, ids.u1, ["submitted"]);
      // Walked first (a share of 1: the first answered records by primary key, the rest through the index) and through the
      // index only (0): the same counts.
      const walked = await answeredTotal(store.db, q, submitted, seqs, limit, 1);
      expect(await answeredTotal(store.db, q, submitted, seqs, limit, 0)).toBe(walked);
      return walked;
    };
    // The spread shape: u1 answered every 2nd record; `rare` in every 10th (all answered): 500, `common` in all: 2,500.
    expect(await count(pageQuery(spread, [submitted], { userId: ids.u1, text: "rare" }), BOUND)).toBe(500);
    expect(await count(pageQuery(spread, [submitted], { userId: ids.u1, text: "common" }), BOUND)).toBe(BOUND + 1);
    expect(await count(pageQuery(spread, [submitted], { userId: ids.u1, text: "common" }), null)).toBe(2_500);
    expect(await count(pageQuery(spread, [submitted, news], { userId: ids.u1, text: "rare" }), null)).toBe(167);
    // The head: the first 2,400 records, `rare` in 240 of them; the other annotator's none of the caller's.
    expect(await count(pageQuery(head, [submitted], { userId: ids.u1, text: "rare" }), null)).toBe(240);
    // Walked records holding fewer than the bound: the rest counted through the index, the sum exact.
    expect(await count(pageQuery(spread, [submitted], { userId: ids.u1, text: "odd" }), BOUND)).toBe(358);
  });

  it("answers from the caller's records brought up to date after the caller's answers change, on any replica", async () => {
    const replica = new PostgresText(store.db, undefined, new PostgresRankAhead(store.db, { minRecords: 5, listLength: 64 }));
    const slow = new PostgresText(store.db, undefined, null, undefined, false);
    const q: SearchQuery = { ...pageQuery(head, [submitted], { userId: ids.u1, text: "rare" }), offset: 0, limit: 10, totalBound: 10_000 };
    const first = await replica.search(q);
    expect(first).toEqual(await slow.search(q));
    expect(replica.answeredSeqs.reads).toBe(1);
    await replica.search(q);
    expect(replica.answeredSeqs.reads).toBe(1);
    // Another writer (the other replica) submits a record holding `rare` after the caller's head: the next search has it
    // (from the log of changes, migration 0044: nothing read again).
    const [before] = await queryRows<{ id: string }>(
      store.db,
      `SELECT r.id FROM records r WHERE r.dataset_id = $1 AND r.external_id = 'h-2410'`,
      [head],
    );
    await answerRecords(store, [before!], ids.u1, "submitted");
    const after = await replica.search(q);
    expect([replica.answeredSeqs.reads, replica.answeredSeqs.refreshes]).toEqual([1, 1]);
    expect(after).toEqual(await slow.search(q));
    expect(after.total).toBe(first.total + 1);
    await queryRows(store.db, "DELETE FROM responses WHERE record_id = $1 AND user_id = $2", [before!.id, ids.u1]);
    expect(await replica.search(q)).toEqual(first);
    expect([replica.answeredSeqs.reads, replica.answeredSeqs.refreshes]).toEqual([1, 2]);
  });
});

describe.skipIf(!onPostgres)("PostgreSQL: the answered text count under statistics taken before the caller answered", () => {
  it("reads the caller's responses once and intersects the word's index entry with the answered records' keys", async () => {
    const store = await openTestPostgresStore();
    try {
      const { ids } = await seedSearchData(store);
      const dataset = await copyDataset(store, ids.ds);
      // Many times the records the caller answered (1M bench records, 34K Submits), RECORDS at a time.
      const records = [];
      for (let i = 0; i < LATE_RECORDS; i += RECORDS)
        records.push(...(await insertRecords(store, dataset, RECORDS, (k) => shape("l")(i + k))));
      const user = await lateAnnotator(store);
      // The records' words analysed too (as after an import), before the caller answered: the planner weighs the word's GIN entry.
      await queryRows(store.db, "ANALYZE record_search", []);
      await answer(
        store,
        records.filter((_, i) => i % 16 === 0),
        user,
        "submitted",
      );
      type Node = {
        "Relation Name"?: string;
        "Index Name"?: string;
        "Node Type": string;
        "Actual Rows": number;
        "Actual Loops": number;
        Plans?: Node[];
      };
      const explain = async (sql: string, params: unknown[], settings = false) => {
        const run = async (db: typeof store.db) => {
          const [row] = await queryRows<{ "QUERY PLAN": unknown }>(db, `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params as never);
          const plan = typeof row!["QUERY PLAN"] === "string" ? row!["QUERY PLAN"] : JSON.stringify(row!["QUERY PLAN"]);
          const nodes = (n: Node): Node[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
          return nodes((JSON.parse(plan) as { Plan: Node }[])[0]!.Plan);
        };
        if (!settings) return run(store.db);
        return store.db.transaction().execute(async (trx) => {
          await queryRows(trx, "SELECT set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)", []);
          return run(trx);
        });
      };
      const loops = (all: Node[], relation: string) => all.filter((n) => n["Relation Name"] === relation).map((n) => n["Actual Loops"]);
      // The caller's answered records: the caller's responses read once (estimated at 1: from responses_user_record_idx, each
      // record looked up by id), never again for each record.
      const load = answeredSeqsSql(dataset, user, ["submitted"]);
      const loaded = await explain(load.sql, load.params);
      expect(loops(loaded, "responses")).toEqual([1]);
      const seqs = await new AnsweredSeqs(store.db).seqs(dataset, user, ["submitted"]);
      expect(seqs.length).toBe(LATE_RECORDS / 16);
      const q = { ...pageQuery(dataset, [submitted], { userId: user, text: "rare" }), totalBound: 10_000 };
      // The count through the index: the word's GIN entry read once and ANDed with the answered records' primary key entries,
      // the word not tested on each answered record (a plain index scan of them).
      const { sql, params } = answeredTextCount(q, submitted, seqs, null);
      const plan = await explain(sql, params, true);
      expect(loops(plan, "record_search")).toEqual([1]);
      expect(plan.some((n) => n["Node Type"] === "Bitmap Index Scan" && n["Index Name"] === "record_search_tsv_terms_gin")).toBe(true);
      expect(plan.some((n) => n["Node Type"] === "Index Scan")).toBe(false);
      expect(await answeredTotal(store.db, q, submitted, seqs, BOUND, 0.1)).toBe(LATE_RECORDS / 80);
    } finally {
      await store.close();
    }
  }, 120_000);
});
