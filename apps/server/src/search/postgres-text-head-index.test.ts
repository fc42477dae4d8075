import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { Store } from "../db/store.js";
import { loggedDatabase, openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { wholeWindows } from "./postgres-text-head.js";
import { headTerms, PostgresTextHeadIndex } from "./postgres-text-head-index.js";
import { PostgresText } from "./postgres-text.js";
import { PostgresTextVocabulary } from "./postgres-text-vocabulary.js";
import { firstMatches } from "./postgres-text-walk.js";
import type { SearchQuery } from "./search-port.js";
import { completeRecords, copyDataset, insertRecords, seedSearchData, workQueue, TEST_FILTERS } from "./search-port.suite.js";

const onPostgres = testDatabaseUrl() !== null;

const { pending, statusPending } = TEST_FILTERS;
const QUEUE = [pending, statusPending];

/** Record i's text: a phrase in every 3rd, prefixed words (`gamma`, `gamut`, `gamble`) in every 4th, a word in every 2nd. */
const textOf = (i: number) =>
  [
    i % 3 === 0 ? "alpha beta" : "beta",
    i % 2 === 0 ? "delta" : "epsilon",
    i % 4 === 0 ? ["gamma", "gamut", "gamble"][(i / 4) % 3] : "zeta",
    `filler${i % 9}`,
  ].join(" ");

/** The head's statement of postgres-text-head.ts (its matches read in SQL). */
const HEAD_SQL = /array_agg\(DISTINCT f\.record_seq ORDER BY f\.record_seq\)/;

describe("the completed head's text in memory: a tsquery's terms and the whole windows", () => {
  it("reads a conjunction of lexemes and prefixes, nothing else", () => {
    expect(headTerms("'alpha' & 'gam':* & 'tre-zes'")).toEqual([
      { lexeme: "alpha", prefix: false },
      { lexeme: "gam", prefix: true },
      { lexeme: "tre-zes", prefix: false },
    ]);
    for (const tree of ["", null, "T", "'a' | 'b'", "!'a'", "'a' <-> 'b'", "'a':A", "( 'a' & 'b' )", "'it''s'"])
      expect(headTerms(tree)).toBeNull();
  });
  it("ends the whole windows in the matches known before or in those read after them", () => {
    expect(wholeWindows([1, 2, 3], 0, null, 2)).toEqual({ skipped: 2, last: 2 });
    expect(wholeWindows([1, 2, 3], 2, 9, 2)).toEqual({ skipped: 4, last: 9 });
    expect(wholeWindows([1, 2, 3], 0, null, 4)).toBeNull();
    expect(wholeWindows([], 5, 7, 5)).toEqual({ skipped: 5, last: 7 });
  });
});

describe.skipIf(!onPostgres)("PostgreSQL text search: the completed head's matches counted in memory", () => {
  let store: Store;
  let counted: Kysely<DB>;
  const statements: string[] = [];
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  let ds: string;
  let other: string;
  let added: { id: string; seq: number }[];
  beforeAll(async () => {
    store = await openTestPostgresStore();
    counted = loggedDatabase(store, statements);
    ({ ids } = await seedSearchData(store));
    const shape = (i: number) => ({
      external_id: `h-${i}`,
      fields: JSON.stringify({ text: textOf(i), summary: i % 5 === 0 ? "alpha beta gamut" : `filler${i % 5}` }),
      metadata: JSON.stringify({ source: "news", quality: 0.5 }),
    });
    ds = await copyDataset(store, ids.ds);
    added = await insertRecords(store, ds, 900, shape);
    // Another dataset with the same texts after it, nothing completed: never in the head's answers.
    other = await copyDataset(store, ids.ds);
    await insertRecords(store, other, 300, shape);
    // A team's first Submits: the first 400 records completed, some further on; some answered by u1 after them.
    await workQueue(store, added, 400, ids.u1);
  }, 120_000);
  afterAll(async () => {
    await counted?.destroy();
    await store?.close();
  });

  const query = (q: string, datasetId: string, offset = 0, limit = 10, field: string | null = null): SearchQuery => ({
    datasetId,
    userId: ids.u1,
    text: { q, field },
    vector: null,
    sort: [],
    offset,
    limit,
    filters: QUEUE,
    totalBound: 10_000,
  });
  const QUERIES: [string, string | null][] = [
    ["alpha beta", null],
    ["gam*", null],
    ["gamu*", null],
    ["beta gam*", null],
    ["alpha gamut", "summary"],
    ["beta", "summary"],
    ["gam*", "text"],
    ["alpha", "nofield"],
    ["nothing", null],
    ["zzz*", null],
  ];
  /** Pages and totals of the queue's windows (50 a window) without and with the head index, and the head statements run. */
  const compare = async (index: PostgresTextHeadIndex, datasetId: string) => {
    const heads: number[] = [];
    for (const [q, field] of QUERIES)
      for (const [offset, limit] of [
        [0, 10],
        [10, 10],
        [0, 30],
      ] as const) {
        const expected = await new PostgresText(store.db, undefined, null, 50).search(query(q, datasetId, offset, limit, field));
        statements.length = 0;
        const got = await new PostgresText(counted, undefined, null, 50, true, { headIndex: index }).search(
          query(q, datasetId, offset, limit, field),
        );
        expect(got, `${q} ${field} ${offset} ${limit}`).toEqual(expected);
        heads.push(statements.filter((s) => HEAD_SQL.test(s)).length);
      }
    return heads;
  };

  it("gives the SQL path's pages and totals, reading none of the head it holds", async () => {
    const index = new PostgresTextHeadIndex(store.db, { minRecords: 100, minHead: 100, minStep: 10, stepRecords: 10_000 });
    // Before it read the head: the head's matches in SQL.
    expect((await compare(index, ds)).some((n) => n > 0)).toBe(true);
    expect(await index.step(ds)).toBe(true);
    expect(await index.step(ds)).toBe(false); // nothing more to read: the head ends at the first pending record
    expect(index.size).toBeGreaterThan(0);
    expect(await compare(index, ds)).toEqual(Array.from({ length: QUERIES.length * 3 }, () => 0));
    // The whole windows of the phrase's matches in the head (every 3rd of 400 records: 134 in both fields' rows, 2 windows of 50).
    const first = await firstMatches(counted, query("alpha beta", ds), 51, { pendingWindow: 50, skipHead: true, headIndex: index });
    const sql = await firstMatches(counted, query("alpha beta", ds), 51, { pendingWindow: 50, skipHead: true });
    expect(first.skipped).toBeGreaterThan(0);
    expect({ ...first, scores: [...first.scores] }).toEqual({ ...sql, scores: [...sql.scores] });
    // With the vocabulary (a covered prefix through the buckets), the same.
    const vocabulary = new PostgresTextVocabulary(store.db, { minRecords: 100 });
    await vocabulary.read(ds);
    for (const q of ["gam*", "beta gam*"]) {
      const a = await firstMatches(counted, query(q, ds), 51, { pendingWindow: 50, skipHead: true, headIndex: index, vocabulary });
      const b = await firstMatches(counted, query(q, ds), 51, { pendingWindow: 50, skipHead: true, vocabulary });
      expect(a.expanded, q).toBe(true);
      expect({ ...a, scores: [...a.scores] }, q).toEqual({ ...b, scores: [...b.scores] });
    }
    // Another dataset (no head) reads nothing of this one's.
    await compare(index, other);
  });

  it("reads the head's records it does not hold yet in SQL, then grows; a deleted record leaves it until read again", async () => {
    const index = new PostgresTextHeadIndex(store.db, { minRecords: 100, minHead: 100, minStep: 1, stepRecords: 250 });
    expect(await index.step(ds)).toBe(true); // 250 of the head's 400 records
    const partial = await compare(index, ds);
    expect(partial.some((n) => n > 0)).toBe(true);
    // The team completes more: the head grows to 500 records; the index reads the rest of it.
    await completeRecords(store, added.slice(400, 500));
    let steps = 0;
    while (await index.step(ds)) steps++;
    expect(steps).toBe(2);
    expect((await compare(index, ds)).every((n) => n === 0)).toBe(true);
    // A record of the head pending again: the head ends before it, in memory too.
    await store.db.updateTable("records").set({ status: "pending" }).where("id", "=", added[120]!.id).execute();
    expect((await compare(index, ds)).every((n) => n === 0)).toBe(true);
    // A deleted record moves the text version: the SQL path (the same answers) until the index is read again.
    await store.db.deleteFrom("records").where("id", "=", added[50]!.id).execute();
    await compare(index, ds);
    expect(await index.step(ds)).toBe(false); // a dataset with a gap in its seqs is not indexed
    expect(index.size).toBe(0);
  });
});
