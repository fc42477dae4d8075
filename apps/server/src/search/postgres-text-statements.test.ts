import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { Store } from "../db/store.js";
import { loggedDatabase, openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { Builder, queryRows, textWords } from "./postgres-sql.js";
import { PostgresSearch } from "./postgres-search.js";
import { PostgresText } from "./postgres-text.js";
import { firstMatches, SEQ_BUCKET } from "./postgres-text-walk.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import {
  copyDataset,
  expectSameOrLowerTotal,
  insertRecords,
  seedSearchData,
  workQueue,
  TEST_FILTERS,
  answerWhere,
  completeWhere,
} from "./search-port.suite.js";

// Round trips are what a call waits for behind 50 annotators' calls: counted on a real PostgreSQL (stage 60, pgone.sh).
const onPostgres = testDatabaseUrl() !== null;

const { pending, statusPending } = TEST_FILTERS;
const source: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "source" }, values: ["news"] };
const quality: SearchFilter = { type: "range", scope: { entity: "metadata", name: "quality" }, ge: 0.25, le: 0.75 };
/** The annotation page's filters as the bench's team sends them (tools/bench latency.ts). */
const QUEUE = [pending, statusPending];
const METADATA = [pending, statusPending, source, quality];

/** Record i's text: a phrase in every 3rd, a word in every 2nd, prefixed words in every 4th, a rarer word in every 11th. */
const textOf = (i: number) =>
  [
    i % 3 === 0 ? "alpha beta" : "beta",
    i % 2 === 0 ? "delta".repeat(1) + (i % 10 === 0 ? " delta" : "") : "epsilon",
    i % 4 === 0 ? (i % 8 === 0 ? "gamma" : "gamut") : "zeta",
    `filler${i % 9}`,
    i % 11 === 0 ? "kappa" : "",
  ].join(" ");

describe.skipIf(!onPostgres)("PostgreSQL text search: the statements of a new phrase, prefix and word + metadata", () => {
  let store: Store;
  let counted: Kysely<DB>;
  const statements: string[] = [];
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  let other: string;
  beforeAll(async () => {
    store = await openTestPostgresStore();
    // The same database through a pool of its own whose statements are logged (begin and commit included).
    counted = loggedDatabase(store, statements);
    ({ ids } = await seedSearchData(store));
    const shape = (i: number) => ({
      external_id: `s-${i}`,
      fields: JSON.stringify({ text: textOf(i), summary: `filler${i % 5}` }),
      metadata: JSON.stringify({ source: ["news", "forum", "reviews", "support", "wiki"][Math.floor(i / 3) % 5], quality: (i % 9) / 8 }),
    });
    const added = await insertRecords(store, ids.ds, 600, shape);
    // Another dataset with the same texts, all pending, none answered: never in the answers.
    other = await copyDataset(store, ids.ds);
    await insertRecords(store, other, 600, shape);
    // The queue's head answered by u1 (as a team's first Submits leave it: the phrase's first 64 matches), some further on;
    // some records completed.
    await answerWhere(store, added, (i) => i < 192 || i % 6 === 1, ids.u1, "submitted");
    await completeWhere(store, added, (i) => i % 7 === 3);
    expect(await fresh().rankAhead!.rank(ids.ds)).toBe(true);
  }, 120_000);
  afterAll(async () => {
    await counted?.destroy();
    await store?.close();
  });

  const query = (q: string, filters: SearchFilter[], datasetId: string = ids.ds, offset = 0, limit = 10): SearchQuery => ({
    datasetId,
    userId: ids.u1,
    text: { q, field: null },
    vector: null,
    sort: [],
    offset,
    limit,
    filters,
    totalBound: 10_000,
  });
  /** The statements a search runs (begin and commit included), and its answer. */
  const run = async (search: PostgresSearch, q: SearchQuery) => {
    statements.length = 0;
    const got = await search.search(q);
    return { got, statements: [...statements] };
  };
  const fresh = () => new PostgresSearch(counted, { vectorSearch: false, rankAhead: { minRecords: 5 } });
  const plain = () => new PostgresSearch(store.db, { vectorSearch: false, textCache: false, rankAhead: false });

  it("answers a new phrase, prefix and word + metadata as the plain path, in this dataset only", async () => {
    const search = fresh();
    await search.textVocabulary!.read(ids.ds);
    const reference = plain();
    for (const datasetId of [ids.ds, other])
      for (const [text, filters] of [
        ["alpha beta", QUEUE],
        ["alpha beta", METADATA],
        ["gam*", QUEUE],
        ["gam*", METADATA],
        ["delta", METADATA],
        ["delta", QUEUE],
        ["kappa", METADATA],
        ["beta alpha delta", QUEUE],
        ["nothing", METADATA],
        ["nothing here", QUEUE],
        ["zzz*", QUEUE],
      ] as const)
        for (const [offset, limit] of [
          [0, 10],
          [10, 10],
          [0, 0],
        ] as const) {
          const q = query(text, filters, datasetId, offset, limit);
          // Twice: a new query, then its cached entry.
          for (const round of ["new", "cached"])
            expectSameOrLowerTotal(await search.search(q), await reference.search(q), q, `${round} ${JSON.stringify(q)}`);
        }
  }, 120_000);

  it("reads a new phrase or prefix in one transaction and one statement for the page, its filters and the window's count", async () => {
    const search = fresh();
    await search.textVocabulary!.read(ids.ds);
    await search.search(query("filler1 filler2", QUEUE)); // the catalog's index states, read once
    for (const q of ["alpha beta", "gam*"]) {
      const { got, statements: sql } = await run(search, query(q, QUEUE));
      expect(got.hits).toHaveLength(10);
      const rounds = sql.filter((s) => /FROM records_fts f WHERE/.test(s) && !/min\(seq\)/.test(s));
      expect(rounds.length, q).toBeGreaterThan(0);
      // The rest: the transaction (start, the range with the rounds' settings, commit) and the page with its count (twice: the
      // queue's head answered, the page's first candidates hold none passing). Before: the text version, the settings and the
      // window's count each a statement of their own (3 more).
      const page = expect.stringMatching(/FROM records r WHERE[\s\S]* UNION ALL SELECT NULL, NULL, w\.n FROM/);
      const rest = sql.filter((s) => !rounds.includes(s));
      const pages = rest.length - 3;
      expect([1, 2], q).toContain(pages);
      expect(rest, q).toEqual([
        expect.stringMatching(/^start transaction isolation level repeatable read/),
        expect.stringMatching(/min\(seq\) AS first[\s\S]*set_config\('enable_seqscan', 'off', true\)/),
        "commit",
        ...Array.from({ length: pages }, () => page),
      ]);
      // Asked again: the cached windows, the version read first (the page's statement again).
      const again = await run(search, query(q, QUEUE));
      expect(again.got).toEqual(got);
      expect(again.statements).toEqual([expect.stringMatching(/text_search_changes/), ...Array.from({ length: pages }, () => page)]);
    }
  });

  it("reads a new word + metadata's version, records and ranking ahead in one statement and scores its page with its records", async () => {
    const search = fresh();
    await search.search(query("filler1 filler2", QUEUE)); // the catalog's index states, read once
    await search.search(query("zeta", METADATA));
    // A word in 50% of the records (its total by the walk), one in 9% (by the index of words and terms, 0031).
    for (const word of ["delta", "kappa"]) {
      const { got, statements: sql } = await run(search, query(word, METADATA));
      expect(got.hits.length).toBeGreaterThan(0);
      // No transaction: before, the index path's count set the planner's settings in one (3 statements more); its serial
      // plan is now asked inside the count itself (SERIAL_PLAN in the select list), not by a statement of its own.
      expect(sql.filter((s) => /start transaction|^begin|^\s*select set_config/i.test(s))).toEqual([]);
      // Before: the version, the ranking ahead, the dataset's records (twice: the page's and the total's) and the page's scores
      // were statements of their own.
      expect(sql.filter((s) => /text_search_changes/.test(s))).toEqual([expect.stringMatching(/LEFT JOIN text_ranked_ahead/)]);
      expect(sql.filter((s) => /text_ranked_ahead/.test(s))).toHaveLength(1);
      expect(sql.filter((s) => /dataset_record_counts/.test(s))).toHaveLength(1);
      expect(sql.filter((s) => /ts_rank/.test(s)).every((s) => /ORDER BY p\.ord/.test(s))).toBe(true);
    }
  });

  it("counts the queue's records among the windows read when a windowed page grew past windows where none passed", async () => {
    // Windows of 50 matches: the first 64 of the phrase's matches answered by u1, so the page's first 64 candidates (of the
    // first two windows) hold none passing and it reads the next windows; the count comes with the last page statement, over
    // every window read.
    const text = new PostgresText(counted, undefined, null, 50);
    const q = query("alpha beta", QUEUE);
    statements.length = 0;
    const got = await text.search(q);
    const pages = statements.filter((s) => /UNION ALL SELECT NULL, NULL, w\.n/.test(s));
    expect(pages).toHaveLength(2);
    expect(statements.filter((s) => /dataset_record_counts c/.test(s))).toHaveLength(pages.length);
    expect(got.hits).toHaveLength(10);
    // Every match read (200 in 4 windows): the exact total, the plain path's.
    expect(got.totalIsLowerBound).toBeUndefined();
    expect(got.total).toBe((await plain().search(q)).total);
    expect(got.total).toBeGreaterThan(10);
  });

  it("reads a completed head's windows and the first with pending records in one transaction, the page after them: the same pages", async () => {
    // A dataset whose first 300 records are completed (a team's first Submits): the phrase's first 100 matches, two windows of 50.
    const ds = await copyDataset(store, ids.ds);
    const added = await insertRecords(store, ds, 600, (i) => ({
      external_id: `h-${i}`,
      fields: JSON.stringify({ text: textOf(i), summary: `filler${i % 5}` }),
      metadata: JSON.stringify({ source: "news", quality: 0.5 }),
    }));
    await workQueue(store, added, 300, ids.u1);
    // The reference: every match by seq with its score, windows of 50 by score then seq, those the queue keeps.
    const reference = async (q: string) => {
      const b = new Builder(null);
      const tsq = b.tsQuery(textWords(q));
      const rows = await queryRows<{ seq: string; id: string; score: number; pass: boolean }>(
        store.db,
        `SELECT f.record_seq AS seq, r.id, max(ts_rank(f.tsv, (${tsq})))::float8 AS score,
            bool_and(r.status = 'pending' AND NOT EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id AND s.user_id = ${b.p(ids.u1)})) AS pass
          FROM records_fts f JOIN records r ON r.seq = f.record_seq WHERE r.dataset_id = ${b.p(ds)} AND f.tsv @@ (${tsq})
          GROUP BY f.record_seq, r.id ORDER BY f.record_seq`,
        b.params,
      );
      const out: { recordId: string; score: number; pass: boolean }[] = [];
      for (let i = 0; i < rows.length; i += 50)
        for (const r of rows.slice(i, i + 50).sort((a, c) => c.score - a.score || Number(a.seq) - Number(c.seq)))
          out.push({ recordId: r.id, score: r.score, pass: r.pass });
      return out.filter((r) => r.pass).map(({ recordId, score }) => ({ recordId, score }));
    };
    for (const q of ["alpha beta", "gam*", "beta zeta"]) {
      const expected = await reference(q);
      expect(expected.length, q).toBeGreaterThan(20);
      for (const [offset, limit] of [
        [0, 10],
        [10, 10],
        [0, 30],
      ] as const) {
        const text = new PostgresText(counted, undefined, null, 50);
        statements.length = 0;
        const got = await text.search({ ...query(q, QUEUE, ds, offset, limit) });
        expect(got.hits, `${q} ${offset}`).toEqual(expected.slice(offset, offset + limit));
        expect(got.total, q).toBeLessThanOrEqual(expected.length);
        expect(got.total, q).toBeGreaterThanOrEqual(offset + got.hits.length);
        if (got.totalIsLowerBound !== true) expect(got.total, q).toBe(expected.length);
        if (offset > 0 || limit > 10) continue;
        // One transaction read the completed head's windows and the next; one page statement asked the records after the head.
        // The prefix too (no vocabulary here: its probe and walk; at 1M bench records it read the head's windows one transaction
        // after the other before: `qua*` 6 transactions, ~1 s).
        expect(
          statements.filter((s) => /^start transaction/.test(s)),
          q,
        ).toHaveLength(1);
        expect(
          statements.filter((s) => /UNION ALL SELECT NULL, NULL, w\.n/.test(s)),
          q,
        ).toHaveLength(1);
      }
    }
    // The head's whole windows are counted, not read: the phrase's 100 matches in the 300 completed records are two windows of
    // 50; the windows read start at its 101st match (every 3rd record matches: record 300).
    const first = await firstMatches(counted, query("alpha beta", QUEUE, ds), 51, { pendingWindow: 50, skipHead: true });
    expect(first.skipped).toBe(100);
    expect(first.seqs[0]).toBe(added[300]!.seq);
    expect(first.seqs.every((seq) => seq >= added[300]!.seq)).toBe(true);
    expect((await firstMatches(counted, query("alpha beta", QUEUE, ds), 51, { pendingWindow: 50 })).skipped).toBe(0);
    // A prefix without a vocabulary (its probe and walk): the head's whole windows counted in seq order too. Its 75 matches in
    // the 300 completed records (every 4th) are one window of 50; the windows read start at its 51st match (record 200).
    const prefix = await firstMatches(counted, query("gam*", QUEUE, ds), 51, { pendingWindow: 50, skipHead: true });
    expect(prefix.skipped).toBe(50);
    expect(prefix.path).toBe("probe");
    expect(prefix.seqs[0]).toBe(added[200]!.seq);
    expect((await firstMatches(counted, query("gam*", QUEUE, ds), 51, { pendingWindow: 50 })).seqs[0]).toBe(added[0]!.seq);
    // One PostgresText: the queue's windows without the head under a key of their own, the whole order for other filters.
    const text = new PostgresText(counted, undefined, null, 50);
    const reference2 = plain();
    const completedOnly: SearchFilter = { type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] };
    for (const filters of [QUEUE, [completedOnly], [], QUEUE]) {
      const q = query("alpha beta", filters, ds, 0, 30);
      expectSameOrLowerTotal(await text.search(q), await reference2.search(q), q, JSON.stringify(filters));
    }
    // A record of the skipped head pending again (its text unchanged: the text version too): the queue's entry is read anew.
    await store.db.updateTable("records").set({ status: "pending" }).where("id", "=", added[3]!.id).execute();
    const again = await text.search(query("alpha beta", QUEUE, ds, 0, 30));
    expect(again.hits.map((h) => h.recordId)).toContain(added[3]!.id);
    expect(again.hits).toEqual((await reference("alpha beta")).slice(0, 30));
  });
  it("reads a dense phrase from the middle of a bucket through the buckets, not every match of the index, when its first round finds none", async () => {
    // 4,200 records: a bucket of 1,024 seqs ends among them, 3 more buckets after it (the rest of the dataset is read by the index
    // once a round would reach its end). Every record holds `beta` and `delta` (even i) or `epsilon` (odd i).
    const ds = await copyDataset(store, ids.ds);
    const added = await insertRecords(store, ds, 4200, (i) => ({
      external_id: `b-${i}`,
      fields: JSON.stringify({ text: textOf(i), summary: "x" }),
      metadata: JSON.stringify({ source: "news", quality: 0.5 }),
    }));
    const seqs = added.map((r) => Number(r.seq));
    const last = seqs.findIndex((seq) => (seq + 1) % SEQ_BUCKET === 0 && seq > seqs[0]!);
    expect(last).toBeGreaterThan(0);
    // The phrase the bucket's last record does not hold (as a completed head's skipped windows may end just before it).
    const phrase = last % 2 === 0 ? "beta epsilon" : "beta delta";
    const expected = seqs.filter((_, i) => i > last && (i % 2 === 0) === (phrase === "beta delta")).slice(0, 51);
    const got = await firstMatches(counted, query(phrase, QUEUE, ds), 51, { after: seqs[last - 1]! });
    expect(got.seqs).toEqual(expected);
    // Before: the first round (that one record) found none, and the next read every match left in the dataset by the index.
    expect(got.path).toBe("buckets");
  });

  it("starts a page without text in seq order at the first pending record: a completed head is not read", async () => {
    const ds = await copyDataset(store, ids.ds);
    const added = await insertRecords(store, ds, 200, (i) => ({
      external_id: `n-${i}`,
      fields: JSON.stringify({ text: textOf(i), summary: "x" }),
      metadata: JSON.stringify({ source: ["news", "wiki"][i % 2], quality: (i % 9) / 8 }),
    }));
    await completeWhere(store, added, (i) => i < 120 || i % 7 === 0);
    await answerWhere(store, added, (i) => i % 5 === 1, ids.u1, "submitted");
    const search = fresh();
    for (const filters of [QUEUE, METADATA, [statusPending, source]]) {
      const b = new Builder(ids.u1);
      const expected = await queryRows<{ id: string }>(
        store.db,
        `SELECT r.id FROM records r WHERE r.dataset_id = ${b.p(ds)} AND ${filters.map((f) => b.filter(f)).join(" AND ")} ORDER BY r.seq LIMIT 10`,
        b.params,
      );
      expect(expected.length).toBeGreaterThan(3);
      const { got, statements: sql } = await run(search, { ...query("", filters, ds), text: null });
      expect(
        got.hits.map((h) => h.recordId),
        JSON.stringify(filters),
      ).toEqual(expected.map((r) => r.id));
      // Before: the page walked the records from the dataset's first (1M bench records, a head of 15,695: 56 ms, 0.7 ms after).
      expect(
        sql.filter((s) => /ORDER BY r\.seq ASC LIMIT/.test(s)),
        JSON.stringify(filters),
      ).toEqual([
        expect.stringMatching(
          /r\.seq >= \(SELECT x\.seq FROM records x WHERE \(x\.dataset_id, x\.status, x\.seq\) >= \(\$\d+, \$\d+::text, 0\)/,
        ),
      ]);
    }
  });
});
