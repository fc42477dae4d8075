import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openEmbeddedStore, rawSqliteOf, type Store } from "../db/database.js";
import { indexRecordTexts } from "../records/ingest.js";
import type { SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";
import { SqliteMetadata } from "./sqlite-metadata.js";
import { SqliteSearch } from "./sqlite-search.js";
import { SqliteText } from "./sqlite-text.js";
import { ReadPool } from "./sqlite-read-pool.js";
import { textIndexFor } from "./text-index.js";
import { registerTextRanking, textRankingOf } from "./rank-extension.js";
import { addResponses } from "../testing/responses.js";
import { addTextRecord, addTextRecords } from "../testing/text-records.js";

/**
 * The text search cache (sqlite-text.ts): a warm adapter must answer exactly as a new one after
 * records are added, changed, deleted or answered. `fewMatches: -1` sends the small dataset through
 * the cached queue count (used above 2,048 matches in production).
 */
describe("SQLite text search cache", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  const ts = "2024-01-01T00:00:00";
  const words = ["alpha", "beta", "gamma"];

  const insert = (text: string, metadata: Record<string, unknown> | null = null) => addTextRecord(store.db, data.ids.ds, text, metadata);
  const queue = (q: string, offset = 0, limit = 200): SearchQuery => ({
    datasetId: data.ids.ds,
    userId: data.ids.u1,
    text: { q, field: null },
    vector: null,
    sort: [],
    offset,
    limit,
    filters: [
      { type: "terms", scope: { entity: "response_status" }, values: ["pending"] },
      { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
    ],
  });
  let warm: SqliteSearch;
  let text: SqliteText;
  /** The warm adapters against a fresh one (no cache) on the same data. */
  const same = async (q: SearchQuery) => {
    const expected = await new SqliteSearch(store.db, { fewMatches: -1 }).search(q);
    expect(await warm.search(q)).toEqual(expected);
    expect(await text.textSearch(q, q.text!)).toEqual(expected);
    return expected;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-text-"));
    store = await openEmbeddedStore(dir);
    data = await seedSearchData(store);
    for (let i = 0; i < 120; i++)
      await insert(`${words[i % 3]} ${i % 5 === 0 ? words[(i + 1) % 3] : "filler"} word ${i}`, {
        genre: i % 4 === 0 ? "blog" : "news",
        n: i % 7,
      });
    warm = new SqliteSearch(store.db, { fewMatches: -1 });
    text = new SqliteText(store.db, { fewMatches: -1 });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the matches of a repeated query, and answers as an uncached search", async () => {
    for (const q of words) await same(queue(q));
    expect(text.cachedBytes).toBeGreaterThan(0);
    for (const q of words) for (const offset of [0, 5, 30]) await same(queue(q, offset, 10));
  });

  it("follows new, changed, deleted and answered records", async () => {
    const before = await same(queue("alpha"));
    const added = await insert("alpha newcomer");
    const afterInsert = await same(queue("alpha"));
    expect(afterInsert.total).toBe(before.total + 1);
    expect(afterInsert.hits.map((h) => h.recordId)).toContain(added);

    const deleted = afterInsert.hits[0]!.recordId;
    await store.db.deleteFrom("records").where("id", "=", deleted).execute();
    const afterDelete = await same(queue("alpha"));
    expect(afterDelete.total).toBe(before.total);
    expect(afterDelete.hits.map((h) => h.recordId)).not.toContain(deleted);

    const changed = afterDelete.hits[0]!.recordId;
    await store.db
      .updateTable("records")
      .set({ fields: JSON.stringify({ text: "no longer" }) })
      .where("id", "=", changed)
      .execute();
    await indexRecordTexts(store.db);
    const afterUpdate = await same(queue("alpha"));
    expect(afterUpdate.total).toBe(before.total - 1);
    expect(afterUpdate.hits.map((h) => h.recordId)).not.toContain(changed);

    // A Submit leaves the index alone: the pending total drops through the queue exclusions.
    const answered = afterUpdate.hits[0]!.recordId;
    await addResponses(store.db, [answered], data.ids.u1);
    const afterAnswer = await same(queue("alpha"));
    expect(afterAnswer.total).toBe(before.total - 2);
    expect(afterAnswer.hits.map((h) => h.recordId)).not.toContain(answered);
    await store.db.updateTable("records").set({ status: "completed" }).where("id", "=", afterAnswer.hits[0]!.recordId).execute();
    expect((await same(queue("alpha"))).total).toBe(before.total - 3);
  });

  it("counts up to a bound: exact below it, else the bound as a lower bound; the same page either way", async () => {
    // The dataset alone in its seq range (the other dataset's record sits inside it): the queue's count walks the matches.
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    const admin = (q: SearchQuery): SearchQuery => ({ ...q, userId: null, filters: [] });
    const statusOnly = (q: SearchQuery): SearchQuery => ({ ...q, filters: q.filters.slice(1) });
    const pendingOnly = (q: SearchQuery): SearchQuery => ({ ...q, filters: q.filters.slice(0, 1) });
    const bounded = [
      new SqliteText(store.db, { fewMatches: -1 }),
      new SqliteText(store.db),
      new SqliteText(store.db, { offThread: false }),
    ];
    for (const q of words)
      for (const shape of [(x: SearchQuery) => x, admin, statusOnly, pendingOnly])
        for (const [offset, limit] of [
          [0, 10],
          [25, 10],
        ] as const) {
          const query = shape(queue(q, offset, limit));
          const exact = await new SqliteSearch(store.db, { fewMatches: -1 }).search(query);
          expect(exact.total).toBeGreaterThan(30);
          for (const bound of [1, 20, exact.total - 1, exact.total, exact.total + 5])
            for (const adapter of bounded) {
              const limitOf = Math.max(bound, offset + limit);
              const got = await adapter.textSearch({ ...query, totalBound: bound }, query.text!);
              expect(got.hits).toEqual(exact.hits);
              if (exact.total > limitOf) expect(got).toMatchObject({ total: limitOf, totalIsLowerBound: true });
              else expect(got).toEqual(exact);
            }
        }
    // With metadata filters (the annotation page's): the bounded total walks the matches with the in-memory columns,
    // reading at most 2 x (limit + 1) of the word's records: past that, the records passing among those read, as a lower bound.
    const metadata = (q: string, genre: string, offset: number): SearchQuery => ({
      ...queue(q, offset, 5),
      filters: [
        ...queue(q).filters,
        { type: "terms", scope: { entity: "metadata", name: "genre" }, values: [genre] },
        { type: "range", scope: { entity: "metadata", name: "n" }, ge: 1, le: 4 },
      ],
    });
    const raw = rawSqliteOf(store.db)!;
    const seqOf = new Map(
      (raw.prepare("SELECT id, seq FROM records WHERE dataset_id = ?").all(data.ids.ds) as { id: string; seq: number }[]).map((r) => [
        r.id,
        r.seq,
      ]),
    );
    /** The word's matching records in record order (FTS5 alone), and the records passing the filters (the exact, unbounded search). */
    const reference = async (query: SearchQuery) => {
      const matches = [
        ...new Set(
          raw
            .prepare("SELECT rowid >> 10 FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid")
            .pluck()
            .all(`"${query.text!.q}"`) as number[],
        ),
      ].filter((seq) => [...seqOf.values()].includes(seq));
      const all = await new SqliteSearch(store.db, { metadataColumns: false }).search({ ...query, offset: 0, limit: 10_000 });
      return { matches, passing: new Set(all.hits.map((h) => seqOf.get(h.recordId)!)) };
    };
    const seqFilter = vi.spyOn(SqliteMetadata.prototype, "seqFilter");
    let lowerBounds = 0;
    for (const q of words)
      for (const genre of ["news", "blog"])
        for (const offset of [0, 5]) {
          const query = metadata(q, genre, offset);
          const exact = await new SqliteSearch(store.db, { fewMatches: -1, metadataColumns: false }).search(query);
          expect(exact.total).toBeGreaterThan(2);
          const { matches, passing } = await reference(query);
          expect(passing.size).toBe(exact.total);
          for (const bound of [1, 3, 8, exact.total, exact.total + 1]) {
            const limit = Math.max(bound, offset + 5);
            // SQL filters: exact up to the bound.
            const sql = await new SqliteSearch(store.db, { metadataColumns: false }).search({ ...query, totalBound: bound });
            expect(sql).toEqual(exact.total > limit ? { hits: exact.hits, total: limit, totalIsLowerBound: true } : exact);
            // In-memory columns: at most 2 x (limit + 1) of the word's records read.
            const read = matches.slice(0, 2 * (limit + 1));
            const n = read.filter((seq) => passing.has(seq)).length;
            const short = exact.hits.length < 5 && (exact.hits.length > 0 || offset === 0);
            const expected =
              n > limit
                ? { hits: exact.hits, total: limit, totalIsLowerBound: true }
                : read.length === matches.length || short
                  ? exact
                  : { hits: exact.hits, total: Math.max(n, offset + exact.hits.length), totalIsLowerBound: true };
            const got = await new SqliteSearch(store.db, { fewMatches: -1 }).search({ ...query, totalBound: bound });
            expect(got).toEqual(expected);
            if (got.totalIsLowerBound) expect(got.total).toBeLessThanOrEqual(exact.total);
            if (got.totalIsLowerBound && got.total < limit) lowerBounds++;
          }
        }
    expect(lowerBounds).toBeGreaterThanOrEqual(6); // the cap stopped the count in several shapes
    const filters = await Promise.all(seqFilter.mock.results.map((r) => r.value as Promise<unknown>));
    expect(filters.filter((f) => typeof f === "function").length).toBeGreaterThanOrEqual(12);
    seqFilter.mockRestore();
  });

  it("ranks the frequent words ahead: the first page of a word never searched equals FTS5's full ranking, also after writes", async () => {
    const ahead = new SqliteText(store.db, { frequentRows: 30 });
    const slow = () => new SqliteSearch(store.db, { offThread: false });
    const plain = (q: string, offset = 0, limit = 10): SearchQuery => ({ ...queue(q, offset, limit), userId: null, filters: [] });
    const check = async () => {
      for (const q of ["alpha", "Beta", "WORD", "context", "filler"])
        for (const query of [queue(q, 0, 10), plain(q), plain(q, 20, 10)]) {
          const before = ahead.rankedAhead;
          expect(await ahead.textSearch(query, query.text!)).toEqual(await slow().search(query));
          expect(ahead.rankedAhead - before).toBeLessThanOrEqual(1);
        }
    };
    await ahead.rankFrequentWords();
    // alpha, beta, gamma (40+ rows each), word, filler, context: in at least 30 FTS rows of the dataset.
    expect(ahead.frequentWords).toBeGreaterThanOrEqual(6);
    const used = ahead.rankedAhead;
    await check();
    expect(ahead.rankedAhead - used).toBeGreaterThanOrEqual(5); // each word's first search started from the rows ranked ahead

    // A write moves the index: the words ranked ahead are dropped, searches stay exact, and the next ranking serves again.
    const id = await insert("alpha alpha alpha word");
    expect((await ahead.textSearch(plain("alpha"), plain("alpha").text!)).hits[0]!.recordId).toBe(id);
    expect(ahead.frequentWords).toBe(0);
    await check();
    await store.db.deleteFrom("records").where("id", "=", id).execute();
    await ahead.rankFrequentWords(); // run, or (soon after the last run) scheduled: either way the answers stay exact
    await check();
    const fresh = new SqliteText(store.db, { frequentRows: 30 });
    await fresh.rankFrequentWords();
    expect(fresh.frequentWords).toBeGreaterThanOrEqual(6);
    const query = plain("gamma");
    expect(await fresh.textSearch(query, query.text!)).toEqual(await slow().search(query));
    expect(fresh.rankedAhead).toBe(1);

    // A restart reads the ranking stored with the index's version (fts.text_ranked_ahead) instead of ranking again.
    const rank = vi.spyOn(ReadPool.prototype, "rank");
    const restarted = new SqliteText(store.db, { frequentRows: 30 });
    await restarted.rankFrequentWords();
    expect(rank).not.toHaveBeenCalled();
    expect(restarted.storedRankingsRead).toBe(1);
    expect(restarted.frequentWords).toBe(fresh.frequentWords);
    for (const q of [query, plain("alpha", 20, 10), queue("word", 0, 10)])
      expect(await restarted.textSearch(q, q.text!)).toEqual(await slow().search(q));
    expect(restarted.rankedAhead).toBe(3);
    // Searches read what was stored: a tampered row changes the answer.
    const raw = rawSqliteOf(store.db)!;
    const key = raw.prepare(`SELECT key FROM fts.text_ranked_ahead WHERE key LIKE '%:"gamma"'`).pluck().get() as string;
    const bm = raw.prepare("SELECT bm FROM fts.text_ranked_ahead WHERE key = ?").pluck().get(key) as Buffer;
    raw
      .prepare("UPDATE fts.text_ranked_ahead SET bm = ? WHERE key = ?")
      .run(Buffer.from(new Float64Array(bm.length / 8).fill(-99).buffer), key);
    const tampered = new SqliteText(store.db, { frequentRows: 30 });
    await tampered.rankFrequentWords();
    expect((await tampered.textSearch(query, query.text!)).hits[0]!.score).toBe(99);
    raw.prepare("UPDATE fts.text_ranked_ahead SET bm = ? WHERE key = ?").run(bm, key);
    // After a write the stored ranking is stale: ranked again, and stored again.
    await insert("gamma gamma gamma word");
    const later = new SqliteText(store.db, { frequentRows: 30 });
    await later.rankFrequentWords();
    expect(later.storedRankingsRead).toBe(0);
    expect(rank).toHaveBeenCalled();
    expect(await later.textSearch(query, query.text!)).toEqual(await slow().search(query));
    const again = new SqliteText(store.db, { frequentRows: 30 });
    await again.rankFrequentWords();
    expect(again.storedRankingsRead).toBe(1);
    expect(await again.textSearch(query, query.text!)).toEqual(await slow().search(query));
    rank.mockRestore();
  });

  it("filters and counts with the metadata columns: record_metadata is caught up only when SQL filters run", async () => {
    const raw = rawSqliteOf(store.db)!;
    const indexedUpTo = () => raw.prepare("SELECT seq FROM search_index_state WHERE name = 'record_metadata'").pluck().get() as number;
    const query: SearchQuery = {
      ...queue("alpha", 0, 10),
      totalBound: 1000,
      filters: [...queue("alpha").filters, { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] }],
    };
    // The dataset alone in its seq range (else the count runs in SQL).
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    await new SqliteSearch(store.db, { metadataColumns: false }).search(query); // caught up to now
    const before = indexedUpTo();
    const added = await insert("alpha alpha alpha alpha newest", { genre: "blog", n: 2 });
    const got = await new SqliteSearch(store.db, { fewMatches: -1 }).search(query);
    expect(got.hits[0]!.recordId).toBe(added);
    expect(indexedUpTo()).toBe(before); // the page and the total came from the columns
    const sorted: SearchQuery = { ...query, sort: [{ scope: { entity: "record", property: "inserted_at" }, order: "desc" }] };
    await new SqliteSearch(store.db, { fewMatches: -1 }).search(sorted);
    expect(indexedUpTo()).toBeGreaterThan(before); // SQL filters: caught up first
    expect(got).toEqual(await new SqliteSearch(store.db, { metadataColumns: false }).search(query));
  });

  it("with the filters tested in memory, reads every row ranked ahead before FTS5 ranks the word again", async () => {
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    await indexRecordTexts(store.db); // the index settled before the ranking
    const ahead = new SqliteText(store.db, { frequentRows: 30, frequentRanked: 200 });
    await ahead.rankFrequentWords();
    const run = vi.spyOn(ReadPool.prototype, "run");
    const metadata = new SqliteMetadata(store.db);
    const query: SearchQuery = {
      ...queue("word", 0, 10),
      totalBound: 1000,
      filters: [
        ...queue("word").filters,
        { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] },
        { type: "range", scope: { entity: "metadata", name: "n" }, ge: 1, le: 4 },
      ],
    };
    const before = ahead.rankedAhead;
    const got = await ahead.textSearch(query, query.text!, () => metadata.seqFilter(query));
    expect(ahead.rankedAhead - before).toBe(1);
    expect(got.hits).toHaveLength(10);
    expect(got).toEqual(await new SqliteSearch(store.db, { offThread: false, metadataColumns: false }).search(query));
    // The 200 rows kept hold the page (the first 64 did not): no ranking job for the read threads.
    expect(run.mock.calls.filter(([job]) => job.ranked > 0)).toEqual([]);
    run.mockRestore();
  });

  it("reads a bounded total's first matches on a read thread, and answers as the request thread does", async () => {
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    const metadata = new SqliteMetadata(store.db);
    const withMetadata: SearchQuery = {
      ...queue("word", 0, 5),
      totalBound: 3,
      filters: [...queue("word").filters, { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["news"] }],
    };
    for (const query of [withMetadata, { ...queue("word", 0, 5), totalBound: 30 }, { ...queue("alpha", 5, 5), totalBound: 60 }]) {
      const threads = new SqliteText(store.db, { fewMatches: -1 });
      const local = new SqliteText(store.db, { fewMatches: -1, offThread: false });
      const got = await threads.textSearch(query, query.text!, () => metadata.seqFilter(query));
      expect(got).toEqual(await local.textSearch(query, query.text!, () => metadata.seqFilter(query)));
      expect(got).toEqual(
        await new SqliteSearch(store.db, { metadataColumns: false, offThread: false })
          .search(query)
          .then((exact) => ({ ...exact, ...(got.totalIsLowerBound ? { total: got.total, totalIsLowerBound: true } : {}) })),
      );
      expect([threads.walks, threads.walkReads]).toEqual([1, 0]);
      expect(local.walks).toBe(1);
      expect(local.walkReads).toBeGreaterThan(0);
    }
  });

  it("reads a windowed query's first matches only until the bounded total's records pass the queue's filters, not to the walk's cap", async () => {
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    const raw = rawSqliteOf(store.db)!;
    // More records than the 1,024 best rows a first read ranks (its windows read ~1,040 records here), every third of the
    // first 1,500 completed: the queue excludes them (and u1's answers).
    await addTextRecords(
      store.db,
      data.ids.ds,
      Array.from({ length: 3000 }, (_, i) => ({
        text: `kappa ${"lambda ".repeat(1 + (i % 3))}${i}`,
        context: "kappa",
        status: i < 1500 && i % 3 === 0 ? ("completed" as const) : ("pending" as const),
      })),
      "bulk",
    );
    try {
      for (const [q, expression] of [
        ["kap*", `"kap"*`],
        ["kappa lambda", `"kappa" "lambda"`],
      ] as const) {
        const bound = 1300;
        const query: SearchQuery = { ...queue(q, 0, 5), totalBound: bound };
        const excluded = new Set(
          (
            raw
              .prepare("SELECT r.seq FROM responses s JOIN records r ON r.id = s.record_id WHERE s.user_id = ?")
              .pluck()
              .all(data.ids.u1) as number[]
          ).concat(
            raw.prepare("SELECT seq FROM records WHERE dataset_id = ? AND status <> 'pending'").pluck().all(data.ids.ds) as number[],
          ),
        );
        const matching = [
          ...new Set(
            raw.prepare("SELECT rowid >> 10 FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid").pluck().all(expression) as number[],
          ),
        ];
        // The walk needs the matches up to the (bound + 1)-th passing record; its cap is 2 x (bound + 1) records.
        let passed = 0;
        const needed = matching.findIndex((seq) => !excluded.has(seq) && ++passed > bound) + 1;
        expect(needed).toBeGreaterThan(bound + 1 + 300);
        expect(needed).toBeLessThan(2 * (bound + 1));
        const threads = new SqliteText(store.db, { fewMatches: -1, rankWindow: 4 });
        const local = new SqliteText(store.db, { fewMatches: -1, rankWindow: 4, offThread: false });
        const got = await threads.textSearch(query, query.text!);
        expect(got).toEqual(await local.textSearch(query, query.text!));
        expect(got).toEqual({ ...got, total: bound, totalIsLowerBound: true });
        // The thread read exactly the records the walk needed (not its cap of 2,602): no read on the request thread either.
        expect([threads.prefixSeqs, threads.walkReads]).toEqual([needed, 0]);
        // Asked again: the kept matches suffice, no further read.
        expect(await threads.textSearch(query, query.text!)).toEqual(got);
        expect([threads.prefixSeqs, threads.walkReads]).toEqual([needed, 0]);
      }
    } finally {
      await store.db.deleteFrom("records").where("external_id", "like", "bulk-%").execute();
    }
  });

  it("tests a page's many candidates against the queue's filters in memory: the dataset's first records completed, the same pages as in SQL", async () => {
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    // A team completed the dataset's first 1,800 records and u1 answered every 7th of the rest: a windowed query's first
    // windows hold no record of u1's queue, so its page reads thousands of candidates (1M records, 52K completed: 316 ms).
    const ids = await addTextRecords(
      store.db,
      data.ids.ds,
      Array.from({ length: 3000 }, (_, i) => ({
        text: `kappa ${"lambda ".repeat(1 + (i % 3))}${i}`,
        context: "kappa",
        status: i < 1800 ? ("completed" as const) : ("pending" as const),
      })),
      "head",
    );
    await addResponses(
      store.db,
      ids.filter((_, i) => i >= 1800 && i % 7 === 0),
      data.ids.u1,
    );
    try {
      for (const q of ["kappa lambda", "kap*"]) {
        const memory = new SqliteText(store.db, { fewMatches: -1, rankWindow: 4 });
        const inSql = new SqliteText(store.db, { fewMatches: -1, rankWindow: 4, queueInMemory: false });
        for (const [offset, limit] of [
          [0, 5],
          [3, 20],
          [400, 50],
        ] as const) {
          const query = queue(q, offset, limit);
          const got = await memory.textSearch(query, query.text!);
          expect(got).toEqual(await inSql.textSearch(query, query.text!));
          expect(got.hits.length).toBe(limit);
          // None of the page is completed or answered by u1.
          const page = await store.db
            .selectFrom("records")
            .select(["id", "status"])
            .where(
              "id",
              "in",
              got.hits.map((h) => h.recordId),
            )
            .execute();
          expect(page.every((r) => r.status === "pending" && !ids.slice(1800).some((id, i) => id === r.id && (i + 1800) % 7 === 0))).toBe(
            true,
          );
        }
        expect(memory.queueTested).toBeGreaterThan(0);
        expect(inSql.queueTested).toBe(0);
      }
    } finally {
      await store.db.deleteFrom("responses").where("user_id", "=", data.ids.u1).where("record_id", "in", ids).execute();
      await store.db.deleteFrom("records").where("external_id", "like", "head-%").execute();
    }
  });

  it("reads a windowed page's windows once, from its first queue record: the dataset's first 60% completed, the same pages and totals as the plain path", async () => {
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    const raw = rawSqliteOf(store.db)!;
    // A team completed the dataset's first 1,800 of 3,000 records; u1 answered the rest but every 6th (those with i % 12 = 6
    // as drafts, which leave its queue too), u2 every 4th of the rest (another user's answers: still in u1's queue).
    const n = 3000;
    const ids = await addTextRecords(
      store.db,
      data.ids.other,
      Array.from({ length: n }, (_, i) => ({
        text: `kappa ${"lambda ".repeat(1 + (i % 3))}${i % 5 === 0 ? "mu " : ""}${i}`,
        context: i % 2 === 0 ? "kappa lambda" : "nu",
        metadata: { genre: i % 8 === 0 ? "blog" : "news" },
        status: i < 1800 ? ("completed" as const) : ("pending" as const),
      })),
      "once",
    );
    const tail = ids.map((id, i) => ({ id, i })).filter(({ i }) => i >= 1800);
    await addResponses(
      store.db,
      tail.filter(({ i }) => i % 6 !== 0).map(({ id }) => id),
      data.ids.u1,
    );
    await addResponses(
      store.db,
      tail.filter(({ i }) => i % 12 === 6).map(({ id }) => id),
      data.ids.u1,
      "draft",
    );
    await addResponses(
      store.db,
      tail.filter(({ i }) => i % 4 === 0).map(({ id }) => id),
      data.ids.u2,
    );
    const seqOf = (i: number) => raw.prepare("SELECT seq FROM records WHERE id = ?").pluck().get(ids[i]) as number;
    const queueOf = (q: string, userId: string | null, offset: number, limit: number, totalBound?: number): SearchQuery => ({
      ...queue(q, offset, limit),
      datasetId: data.ids.other,
      userId,
      ...(totalBound !== undefined ? { totalBound } : {}),
    });
    const options = { fewMatches: -1, rankWindow: 4 };
    try {
      for (const [q, expression, field] of [
        ["kappa lambda", `"kappa" "lambda"`, null],
        ["kap*", `"kap"*`, null],
        ["kappa", `"kappa"`, "text"],
        ["kappa", `"kappa"`, null],
      ] as const) {
        const fast = new SqliteText(store.db, options);
        const local = new SqliteText(store.db, { ...options, offThread: false });
        const inSql = new SqliteText(store.db, { ...options, queueInMemory: false });
        const plain = new SqliteText(store.db, { ...options, windowsOnce: false, queueInMemory: false });
        const text = { q, field };
        // u1's pages (the last ones past its 100 queue records of the tail: the page grows through every window), u2's, an admin's.
        for (const query of [
          queueOf(q, data.ids.u1, 0, 5),
          queueOf(q, data.ids.u1, 3, 20),
          queueOf(q, data.ids.u1, 60, 30, 40),
          queueOf(q, data.ids.u1, 95, 10),
          queueOf(q, data.ids.u2, 0, 10),
          queueOf(q, data.ids.u2, 400, 50),
          queueOf(q, null, 0, 10),
        ]) {
          const expected = await plain.textSearch(query, text);
          for (const other of [fast, local, inSql])
            expect(await other.textSearch(query, text), `${q} ${JSON.stringify(query)}`).toEqual(expected);
          if (query.userId === data.ids.u1 && query.offset === 0) expect(expected.hits.length).toBe(5);
        }
        if (field === null && q === "kappa") {
          // One plain word: FTS5's full ranking, no windows.
          expect([fast.windowRows, plain.windowRows]).toEqual([0, 0]);
          continue;
        }
        // No row scored twice: at most the query's rows from u1's first queue record on (then u2's and the admin's reads).
        const rowsFrom = (first: number) =>
          raw
            .prepare(`SELECT count(*) FROM records_fts WHERE records_fts MATCH ? AND rowid >= ?${field !== null ? " AND field = ?" : ""}`)
            .pluck()
            .get(expression, first * 1024, ...(field !== null ? [field] : [])) as number;
        const first = seqOf(1800);
        const u1Fast = new SqliteText(store.db, options);
        const u1Local = new SqliteText(store.db, { ...options, offThread: false });
        const u1Plain = new SqliteText(store.db, { ...options, windowsOnce: false });
        for (const [offset, limit] of [
          [0, 5],
          [3, 20],
          [60, 30],
          [95, 10],
        ] as const)
          for (const t of [u1Fast, u1Local, u1Plain]) await t.textSearch(queueOf(q, data.ids.u1, offset, limit), text);
        expect(u1Fast.windowRows).toBeGreaterThan(0);
        expect(u1Fast.windowRows).toBeLessThanOrEqual(rowsFrom(first));
        expect(u1Local.windowRows).toBeLessThanOrEqual(rowsFrom(first));
        // Read from the dataset's first record and again each time the page grew: the completed head scored, more than once.
        expect(u1Plain.windowRows).toBeGreaterThan(rowsFrom(seqOf(0)));
        // The queue's exclusions built once per search (the page's in-memory test and the total's walk share them).
        const once = new SqliteText(store.db, options);
        await once.textSearch(queueOf(q, data.ids.u1, 95, 10), text);
        expect(once.queueTested).toBeGreaterThan(0);
        expect(once.exclusionsBuilt).toBe(1);
      }
      // The queue and a metadata filter tested in memory (the page's first passing record is the first of both): the same.
      const metadata = new SqliteMetadata(store.db);
      for (const [offset, limit] of [
        [0, 10],
        [40, 20],
      ] as const) {
        const query: SearchQuery = {
          // Bounded (the walk tests the filters in memory too; an exact total counts in SQL).
          ...queueOf("kappa lambda", data.ids.u1, offset, limit, 1000),
          filters: [...queue("x").filters, { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] }],
        };
        const text = query.text!;
        const seqFilter = () => metadata.seqFilter(query);
        const expected = await new SqliteText(store.db, { ...options, windowsOnce: false }).textSearch(query, text, seqFilter);
        // 50 records of the tail pass both: the last page holds 10 of them.
        expect(expected.hits.length).toBe(10);
        const fast = new SqliteText(store.db, options);
        expect(await fast.textSearch(query, text, seqFilter)).toEqual(expected);
        expect(await new SqliteText(store.db, { ...options, offThread: false }).textSearch(query, text, seqFilter)).toEqual(expected);
        expect(fast.windowRows).toBeGreaterThan(0);
        expect(fast.windowRows).toBeLessThanOrEqual(
          raw
            .prepare("SELECT count(*) FROM records_fts WHERE records_fts MATCH ? AND rowid >= ?")
            .pluck()
            .get(`"kappa" "lambda"`, seqOf(1800) * 1024) as number,
        );
      }
      // Edge cases for u1 and a phrase, against the plain path: the only queue record in the last window, then none left.
      const phrase = { q: "kappa lambda", field: null };
      const check = async (expectHits: number) => {
        for (const [offset, limit] of [
          [0, 10],
          [1, 10],
        ] as const) {
          const query = queueOf(phrase.q, data.ids.u1, offset, limit);
          const expected = await new SqliteText(store.db, { ...options, windowsOnce: false, queueInMemory: false }).textSearch(
            query,
            phrase,
          );
          const fast = new SqliteText(store.db, options);
          expect(await fast.textSearch(query, phrase)).toEqual(expected);
          expect(await new SqliteText(store.db, { ...options, offThread: false }).textSearch(query, phrase)).toEqual(expected);
          if (offset === 0) expect(expected.hits.length).toBe(expectHits);
          if (expectHits === 0) expect(fast.windowRows).toBe(0);
        }
      };
      const last = ids.length - 3; // i = 2997: matches the phrase (its text has "kappa lambda"), not answered by u1 (2997 % 6 = 3) … made pending alone
      await store.db.deleteFrom("responses").where("record_id", "=", ids[last]!).execute();
      await store.db.updateTable("records").set({ status: "completed" }).where("dataset_id", "=", data.ids.other).execute();
      await store.db.updateTable("records").set({ status: "pending" }).where("id", "=", ids[last]!).execute();
      await check(1);
      await store.db.updateTable("records").set({ status: "completed" }).where("id", "=", ids[last]!).execute();
      await check(0);
    } finally {
      await store.db.deleteFrom("responses").where("record_id", "in", ids).execute();
      await store.db.deleteFrom("records").where("external_id", "like", "once-%").execute();
    }
  });

  it("matches a long prefix as its terms ORed: the same pages, scores and totals as the prefix itself", async () => {
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    const forms = ["omicron", "omicrons", "omicronic", "omicrox"];
    for (let j = 0; j < 30; j++)
      await insert(`${forms[j % 4]} ${"pad ".repeat(j % 5)}${j % 3 === 0 ? forms[(j + 1) % 4] : "rho"} ${j % 7 === 0 ? forms[j % 4] : ""}`);
    for (const [q, field] of [
      ["omicr*", null],
      ["Omicro*", "text"],
      ["omicron*", null],
      ["omicronzz*", null],
    ] as const)
      for (const [offset, limit, bound] of [
        [0, 10, 10_000],
        [7, 5, 10_000],
        [0, 5, 3],
      ] as const) {
        const query: SearchQuery = { ...queue(q, offset, limit), text: { q, field }, totalBound: bound };
        const asWritten = await new SqliteText(store.db, { fewMatches: -1, rankWindow: 6, prefixTerms: false }).textSearch(
          query,
          query.text!,
        );
        for (const offThread of [true, false]) {
          const expanding = new SqliteText(store.db, { fewMatches: -1, rankWindow: 6, offThread });
          expect(await expanding.textSearch(query, query.text!), `${q} ${offset} ${offThread}`).toEqual(asWritten);
          // Asked again: from the terms kept.
          expect(await expanding.textSearch(query, query.text!)).toEqual(asWritten);
          expect(expanding.prefixesExpanded).toBe(q === "omicronzz*" ? 0 : 1);
        }
        // The frequent words ranked ahead: those of the prefix are listed without reading their rows, the same answer.
        const ahead = new SqliteText(store.db, { fewMatches: -1, rankWindow: 6, frequentRows: 5 });
        await ahead.rankFrequentWords();
        expect(ahead.frequentWords).toBeGreaterThan(0);
        expect(await ahead.textSearch(query, query.text!), `${q} ${offset} ranked ahead`).toEqual(asWritten);
        if (q !== "omicronzz*") expect(ahead.prefixTermsKnown).toBeGreaterThan(0);
        if (q !== "omicronzz*") expect(asWritten.hits.length).toBeGreaterThan(0);
      }
  });

  it("answers a long prefix with its terms as of the match: a term indexed between the listing and the match is found", async () => {
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    for (let j = 0; j < 12; j++) await insert(`kappas ${j % 2 === 0 ? "kappaq" : "rho"}`);
    const query: SearchQuery = { ...queue("kappa*", 0, 50), text: { q: "kappa*", field: null } };
    for (const offThread of [true, false]) {
      const term = `kappaz${offThread ? "a" : "b"}`;
      // A record with a new term of the prefix, indexed right after its terms were listed (before the search's reads).
      let added = "";
      const restore: (() => void)[] = [];
      if (offThread) {
        const listing = vi.spyOn(ReadPool.prototype, "prefixTerms");
        listing.mockImplementationOnce(async function (this: ReadPool, prefix, max) {
          listing.mockRestore();
          const listed = await ReadPool.prototype.prefixTerms.call(this, prefix, max);
          added = await insert(`${term} omega`);
          return listed;
        });
        restore.push(() => listing.mockRestore());
      } else {
        const proto = SqliteText.prototype as unknown as { searchExpression: (...args: unknown[]) => Promise<unknown> };
        const original = proto.searchExpression;
        const search = vi.spyOn(proto, "searchExpression").mockImplementationOnce(async function (this: SqliteText, ...args) {
          added = await insert(`${term} omega`);
          return original.apply(this, args);
        });
        restore.push(() => search.mockRestore());
      }
      const expanding = new SqliteText(store.db, { fewMatches: -1, rankWindow: 6, offThread });
      const found = await expanding.textSearch(query, query.text!);
      restore.forEach((r) => r());
      expect(added).not.toBe("");
      expect(found.hits.map((h) => h.recordId)).toContain(added);
      const asWritten = await new SqliteText(store.db, { fewMatches: -1, rankWindow: 6, prefixTerms: false }).textSearch(
        query,
        query.text!,
      );
      expect(found, `offThread ${offThread}`).toEqual(asWritten);
      expect([expanding.prefixesExpanded, expanding.prefixesMoved]).toEqual([1, 1]);
      // Asked again at the index's new version: expanded with the new term, no second search.
      expect(await expanding.textSearch(query, query.text!)).toEqual(asWritten);
      expect([expanding.prefixesExpanded, expanding.prefixesMoved]).toEqual([2, 1]);
    }
  });

  it("ranks several words, a prefix or one field window by window: each stretch of matching records by score; exact when one holds them all", async () => {
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    // Scores that do not follow record order: the term frequencies and lengths vary with j.
    for (let j = 0; j < 40; j++)
      await insert(`delta ${"epsilon ".repeat(1 + ((j * 7) % 5))}${"pad ".repeat((j * 3) % 4)}zeta${j % 2 === 0 ? " eta" : ""}`);
    const raw = rawSqliteOf(store.db)!;
    const seqs = raw.prepare("SELECT seq, id FROM records WHERE dataset_id = ?").all(data.ids.ds) as { seq: number; id: string }[];
    const idOf = new Map(seqs.map((r) => [r.seq, r.id]));
    /** The order by FTS5's scores alone: the matching records in record order, in windows of `window`, each by (bm25, rowid) of its rows. */
    const reference = (expression: string, field: string | null, window: number) => {
      const rows = (
        raw
          .prepare(
            `SELECT rowid, bm25(records_fts) FROM records_fts WHERE records_fts MATCH ?${field ? " AND field = ?" : ""} ORDER BY rowid`,
          )
          .raw()
          .all(expression, ...(field ? [field] : [])) as [number, number][]
      ).filter(([fr]) => idOf.has(Math.floor(fr / 1024)));
      const order: { seq: number; bm: number }[] = [];
      // Windows of `width` seqs from the dataset's first record: the first ends before the (window + 1)-th matching record.
      const lo = Math.min(...seqs.map((r) => r.seq));
      const matching = [...new Set(rows.map(([fr]) => Math.floor(fr / 1024)))];
      const width = matching.length > window ? matching[window]! - lo : Infinity;
      const windows: [number, number][][] = [];
      for (const r of rows) (windows[Math.floor((Math.floor(r[0] / 1024) - lo) / width)] ??= []).push(r);
      for (const w of windows.filter(Boolean))
        for (const [fr, bm] of w.sort((a, b) => a[1] - b[1] || a[0] - b[0]))
          if (!order.some((o) => o.seq === Math.floor(fr / 1024))) order.push({ seq: Math.floor(fr / 1024), bm });
      return order;
    };
    /** FTS5's idf of a phrase (fts5_aux.c: over the whole table, floored at 1e-6). */
    const idfOf = (phrase: string) => {
      const n = raw.prepare("SELECT count(*) FROM records_fts WHERE records_fts MATCH ?").pluck().get(phrase) as number;
      const rows = raw.prepare("SELECT count(*) FROM records_fts").pluck().get() as number;
      const idf = Math.log((rows - n + 0.5) / (n + 0.5));
      return idf <= 0 ? 1e-6 : idf;
    };
    const answered = new Set(
      (
        raw
          .prepare("SELECT r.seq FROM responses s JOIN records r ON r.id = s.record_id WHERE s.user_id = ?")
          .pluck()
          .all(data.ids.u1) as number[]
      ).concat(raw.prepare("SELECT seq FROM records WHERE status <> 'pending'").pluck().all() as number[]),
    );
    let differs = 0;
    for (const [q, expression, field] of [
      ["delta epsilon", `"delta" "epsilon"`, null],
      ["zeta epsilon delta", `"zeta" "epsilon" "delta"`, null],
      ["eps*", `"eps"*`, null],
      ["epsilon", `"epsilon"`, "text"],
    ] as const)
      for (const window of [7, 1000]) {
        const expected = reference(expression, field, window).filter((o) => !answered.has(o.seq));
        expect(expected.length).toBeGreaterThan(15);
        if (window === 7) {
          const global = reference(expression, field, 1000).filter((o) => !answered.has(o.seq));
          if (expected.map((o) => o.seq).join() !== global.map((o) => o.seq).join()) differs++;
        }
        for (const [offset, limit, bound] of [
          [0, 10, 10_000],
          [12, 10, 10_000],
          [0, 5, 3],
        ] as const) {
          const query: SearchQuery = { ...queue(q, offset, limit), text: { q, field }, totalBound: bound };
          const page = expected.slice(offset, offset + limit).map((o) => ({ recordId: idOf.get(o.seq)!, score: -o.bm }));
          const total =
            expected.length > Math.max(bound, offset + limit)
              ? { total: Math.max(bound, offset + limit), totalIsLowerBound: true }
              : { total: expected.length };
          const threads = new SqliteText(store.db, { fewMatches: -1, rankWindow: window });
          const local = new SqliteText(store.db, { fewMatches: -1, rankWindow: window, offThread: false });
          for (const adapter of [threads, local]) {
            const got = await adapter.textSearch(query, query.text!);
            // Several words: bm25's scores to the last bit (tessera_bm25 with the phrases' row counts). One phrase: bm25 without
            // its idf (a constant factor of the phrase: the same order), so bm25's score divided by that idf.
            const single = !expression.includes(" ");
            const idf = single ? idfOf(expression) : 1;
            expect(got.hits.map((h) => h.recordId)).toEqual(page.map((h) => h.recordId));
            if (single) for (const [i, h] of got.hits.entries()) expect(h.score).toBeCloseTo(page[i]!.score / idf, 12);
            else expect(got.hits).toEqual(page);
            expect({ ...got, hits: [] }).toEqual({ hits: [], ...total });
            // Several words: each phrase's rows counted once (by the read thread's job, or here), not by FTS5 per statement.
            expect(adapter.phraseCounts).toBe(single ? 0 : expression.split(" ").length);
          }
          // On the threads, the window's read gave the total's first matches too: no walk on the request thread.
          expect(threads.walkReads).toBe(0);
          // Few matches, all read: the total probes `records` for them, without an FTS5 query in SQL.
          expect([threads.sqlCounts, local.sqlCounts]).toEqual([0, 0]);
        }
      }
    expect(differs).toBe(4); // a window of 7 records is not FTS5's full ranking, for every query
    // One plain word over all fields keeps FTS5's full ranking (or the rows ranked ahead).
    const plain = { ...queue("epsilon", 0, 30) };
    const full = reference(`"epsilon"`, null, 10_000);
    expect((await new SqliteText(store.db, { rankWindow: 3 }).textSearch(plain, plain.text!)).hits.map((h) => h.recordId)).toEqual(
      full
        .filter((o) => !answered.has(o.seq))
        .slice(0, 30)
        .map((o) => idOf.get(o.seq)),
    );
  });

  it("counts each phrase's rows once per index version for tessera_bm25; the frequent words' come with the ranking ahead, also after a restart", async () => {
    const slow = () => new SqliteSearch(store.db, { offThread: false });
    const plain = (q: string): SearchQuery => ({ ...queue(q, 0, 10), userId: null, filters: [] });
    for (const offThread of [true, false]) {
      const adapter = new SqliteText(store.db, { offThread, frequentRows: 0 });
      expect(await adapter.textSearch(plain("alpha word"), plain("alpha word").text!)).toEqual(await slow().search(plain("alpha word")));
      expect(adapter.phraseCounts).toBe(2);
      // "Word" is the term of "word": counted already. "filler" is new.
      expect(await adapter.textSearch(plain("Word filler"), plain("Word filler").text!)).toEqual(await slow().search(plain("Word filler")));
      expect(adapter.phraseCounts).toBe(3);
      // One phrase (a prefix, one word in one field) needs no count.
      await adapter.textSearch(plain("alp*"), plain("alp*").text!);
      expect(adapter.phraseCounts).toBe(3);
      // A write moves the index's version: counted again, and the scores follow it.
      const id = await insert("alpha word word word");
      const after = await adapter.textSearch(plain("alpha word"), plain("alpha word").text!);
      expect(after).toEqual(await slow().search(plain("alpha word")));
      expect(after.hits[0]!.recordId).toBe(id);
      expect(adapter.phraseCounts).toBe(5);
      await store.db.deleteFrom("records").where("id", "=", id).execute();
    }
    // Without the extension (not built, or TESSERA_TEXT_RANKING=bm25): FTS5's bm25(), the same answers for several words.
    const ranking = textRankingOf(store.db);
    const withExtension = await new SqliteText(store.db).textSearch(plain("alpha word"), plain("alpha word").text!);
    registerTextRanking(store.db, { scoring: "bm25", file: null, reason: "TESSERA_TEXT_RANKING=bm25" });
    try {
      for (const offThread of [true, false]) {
        const adapter = new SqliteText(store.db, { offThread });
        expect(await adapter.textSearch(plain("alpha word"), plain("alpha word").text!)).toEqual(withExtension);
        expect(adapter.phraseCounts).toBe(0);
      }
    } finally {
      registerTextRanking(store.db, ranking);
    }
    await textIndexFor(store.db)!.catchUp(); // the delete indexed: the ranking below sees a settled index
    // Ranking ahead reads the frequent words' rows with them: a query of frequent words counts nothing.
    const ahead = new SqliteText(store.db, { frequentRows: 30 });
    await ahead.rankFrequentWords();
    for (const q of ["alpha word", "filler context word"])
      expect(await ahead.textSearch(plain(q), plain(q).text!)).toEqual(await slow().search(plain(q)));
    expect(ahead.phraseCounts).toBe(0);
    // Stored with the ranking: read back at a restart.
    const restarted = new SqliteText(store.db, { frequentRows: 30 });
    await restarted.rankFrequentWords();
    expect(restarted.storedRankingsRead).toBe(1);
    expect(await restarted.textSearch(plain("gamma word"), plain("gamma word").text!)).toEqual(await slow().search(plain("gamma word")));
    expect(restarted.phraseCounts).toBe(0);
    // A ranking stored without them (an older version's) gets them counted once, and stored.
    rawSqliteOf(store.db)!.prepare("DELETE FROM fts.text_phrase_rows").run();
    const upgraded = new SqliteText(store.db, { frequentRows: 30 });
    await upgraded.rankFrequentWords();
    expect(upgraded.storedRankingsRead).toBe(1);
    await upgraded.textSearch(plain("beta word"), plain("beta word").text!);
    expect(upgraded.phraseCounts).toBe(0);
    expect(rawSqliteOf(store.db)!.prepare("SELECT count(*) FROM fts.text_phrase_rows").pluck().get()).toBeGreaterThanOrEqual(6);
  });

  it("searches answered records (Submitted, Discarded) from the responses: the same page and an exact total as from the matches", async () => {
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    const ids: string[] = [];
    for (let j = 0; j < 60; j++)
      ids.push(
        await insert(`kiwi ${"mango ".repeat(1 + ((j * 7) % 4))}${"pad ".repeat((j * 3) % 5)}${j % 2 === 0 ? "mangrove" : "lime"}`, {
          genre: j % 3 === 0 ? "blog" : "news",
          n: j % 7,
        }),
      );
    const answer = (j: number, userId: string, status: "submitted" | "discarded") => addResponses(store.db, [ids[j]!], userId, status);
    for (let j = 0; j < 60; j++) {
      if (j % 3 === 0) await answer(j, data.ids.u1, "submitted");
      else if (j % 5 === 1) await answer(j, data.ids.u1, "discarded");
      if (j % 4 === 0) await answer(j, data.ids.u2, "submitted");
    }
    const fast = new SqliteText(store.db, { rankWindow: 4 });
    const local = new SqliteText(store.db, { rankWindow: 4, offThread: false });
    // Every run of answered records read as a range of its own (answeredRanges), on a text match thread and here.
    const ranged = [true, false].map((offThread) => new SqliteText(store.db, { rankWindow: 4, answeredGap: 1, offThread }));
    // The words' best 8 rows ranked ahead: a page within them comes from them.
    const ahead = new SqliteText(store.db, { rankWindow: 4, frequentRows: 10, frequentRanked: 8 });
    await textIndexFor(store.db)!.catchUp();
    await ahead.rankFrequentWords();
    expect(ahead.frequentWords).toBeGreaterThan(0);
    let compared = 0;
    for (const q of ["kiwi", "kiwi mango", "man*", "lime pad"])
      for (const statuses of [["submitted"], ["discarded"], ["submitted", "discarded"], ["draft"]])
        for (const userId of [data.ids.u1, null])
          for (const extra of [
            [],
            [{ type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["news"] }],
          ] as SearchQuery["filters"][])
            for (const offset of [0, 4]) {
              const query: SearchQuery = {
                ...queue(q, offset, 4),
                userId,
                filters: [{ type: "terms", scope: { entity: "response_status" }, values: statuses }, ...extra],
              };
              const expected = await new SqliteText(store.db, { rankWindow: 4, answered: false }).textSearch(query, query.text!);
              const before = fast.answeredSearches;
              expect(await fast.textSearch(query, query.text!)).toEqual(expected);
              expect(await local.textSearch(query, query.text!)).toEqual(expected);
              for (const adapter of [...ranged, ahead]) expect(await adapter.textSearch(query, query.text!)).toEqual(expected);
              expect(fast.answeredSearches).toBe(before + 1);
              if (expected.total > 4) compared++;
            }
    expect(compared).toBeGreaterThan(20); // pages of several windows compared, not only empty answers
    expect(ahead.answeredAhead).toBeGreaterThan(0);
    expect(ahead.answeredAhead).toBeLessThan(ahead.answeredSearches); // and pages beyond them scored
  });

  it("follows the caller's answers in the Submitted view (new, changed, deleted), with and without text, as the plain paths", async () => {
    const ids: string[] = [];
    for (let j = 0; j < 40; j++) ids.push(await insert(`papaya ${j % 2 === 0 ? "quince" : "rowan"} ${"papaya ".repeat(j % 3)}${j}`));
    const submitted = (q: string | null, offset = 0): SearchQuery => ({
      ...queue(q ?? "x", offset, 5),
      text: q === null ? null : { q, field: null },
      filters: [{ type: "terms", scope: { entity: "response_status" }, values: ["submitted"] }],
    });
    const fast = new SqliteSearch(store.db);
    const plain = () => new SqliteSearch(store.db, { answered: false });
    const compare = async () => {
      let hits = 0;
      for (const q of [null, "papaya", "quince", "papaya rowan", "nothingsuch"])
        for (const offset of [0, 5]) {
          const expected = await plain().search(submitted(q, offset));
          expect(await fast.search(submitted(q, offset))).toEqual(expected);
          hits += expected.hits.length;
        }
      return hits;
    };
    const respond = (j: number, userId: string, status: "submitted" | "draft" | "discarded") =>
      store.db
        .insertInto("responses")
        .values({ id: randomUUID(), record_id: ids[j]!, user_id: userId, status, values: "{}", inserted_at: ts, updated_at: ts })
        .execute();
    const raw = rawSqliteOf(store.db)!;
    const { answeredSetsOf } = await import("./sqlite-answered.js");
    const sets = answeredSetsOf(raw);
    await compare();
    // New answers (the caller's and another user's): read as the new rows only.
    const loads = sets.loads;
    for (let j = 0; j < 40; j += 3) await respond(j, data.ids.u1, "submitted");
    await respond(1, data.ids.u2, "submitted");
    await respond(2, data.ids.u1, "draft");
    expect(await compare()).toBeGreaterThan(10);
    expect(sets.loads).toBe(loads);
    expect(sets.caughtUp).toBeGreaterThan(0);
    // A submitted answer changed to a draft, another deleted: the set is read again.
    await store.db
      .updateTable("responses")
      .set({ status: "draft" })
      .where("record_id", "=", ids[3]!)
      .where("user_id", "=", data.ids.u1)
      .execute();
    await store.db.deleteFrom("responses").where("record_id", "=", ids[6]!).where("user_id", "=", data.ids.u1).execute();
    await compare();
    expect(sets.loads).toBeGreaterThan(loads);
    // A record with the caller's answer deleted.
    await store.db.deleteFrom("records").where("id", "=", ids[9]!).execute();
    await indexRecordTexts(store.db);
    await compare();
    // Another dataset's answers are not the caller's answers here.
    const other = await fast.search({ ...submitted(null), datasetId: data.ids.other });
    expect(other).toEqual(await plain().search({ ...submitted(null), datasetId: data.ids.other }));
  });

  it("stays within its memory budget", async () => {
    const small = new SqliteText(store.db, { fewMatches: -1, cacheBytes: 2048 });
    for (const q of [...words, ...words]) {
      const query = queue(q);
      expect(await small.textSearch(query, query.text!)).toEqual(await new SqliteSearch(store.db, { fewMatches: -1 }).search(query));
      expect(small.cachedBytes).toBeLessThanOrEqual(2048);
    }
  });
});
