import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/database.js";
import { seededRandom } from "../testing/random.js";
import { wordDataset } from "../testing/word-records.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import type { seedSearchData } from "./search-port.suite.js";
import { readPoolFor } from "./sqlite-read-pool.js";
import { mergeByScore } from "./sqlite-text-deep.js";
import { loadRowLengthsFor } from "./sqlite-row-lengths.js";
import { SqliteText } from "./sqlite-text.js";
import { textIndexFor } from "./text-index.js";

/**
 * A plain word's pages deep in its score order, read in C on the read threads (sqlite-text-deep.ts): every page equal to
 * FTS5's `ORDER BY bm25` path's with nothing kept (same records, order, scores and totals), while iterating, after
 * deletions between pages, with filters, for a word in no record and an empty query.
 */
describe("a plain word's deep pages from the read threads in C", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  let ids: string[];
  beforeAll(async () => {
    ({ dir, store, data, ids } = await wordDataset("tessera-text-deep-", seededRandom(2121), 3_000, false));
    await textIndexFor(store.db)?.catchUp();
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const queryOf = (q: string, offset: number, limit: number, filters: SearchFilter[] = []): SearchQuery => ({
    datasetId: data.ids.ds,
    userId: null,
    text: { q, field: null },
    vector: null,
    filters,
    sort: [],
    offset,
    limit,
  });
  /** The reference: FTS5's ranking, nothing kept between calls. */
  const plain = (query: SearchQuery) =>
    new SqliteText(store.db, { deepTop: false, cacheBytes: 0 }).textSearch(query, { q: query.text!.q, field: null });

  it("gives FTS5's pages while the SDK iterates a word from a deep offset, reading the ranking once", async () => {
    for (const q of ["common", "middle"]) {
      const deep = new SqliteText(store.db);
      let seen = 0;
      for (let offset = 400; ; offset += 150) {
        const query = queryOf(q, offset, 150);
        const page = await deep.textSearch(query, { q, field: null });
        expect(page, `${q} at ${offset}`).toEqual(await plain(query));
        seen += page.hits.length;
        if (page.hits.length === 0) break;
      }
      expect(seen, q).toBeGreaterThan(100);
      // Read in C, once: 4 x (3 x 550 + 32) records at the first page cover every later one.
      expect(deep.deepReads, q).toBe(1);
      expect(deep.rankedReads, q).toBe(1);
      // Counted once, before the first page: the later pages' totals are the halves' counts, kept.
      expect(deep.sqlCounts, q).toBe(1);
    }
  }, 120_000);

  it("keeps a word's total for its later pages, bounded or not, and counts again after a write", async () => {
    const bounded = (offset: number, bound: number | null) => ({ ...queryOf("middle", offset, 100), totalBound: bound });
    const deep = new SqliteText(store.db);
    // A bound below the word's records: a lower bound kept, which answers any lower bound and not a higher one.
    for (const [offset, bound] of [
      [0, 300],
      [100, 250],
      [200, 300],
      [300, 800],
    ] as [number, number][])
      expect(await deep.textSearch(bounded(offset, bound), { q: "middle", field: null }), `${offset} ${bound}`).toEqual(
        await plain(bounded(offset, bound)),
      );
    // The first page and the higher bound counted; that page (k = 3 x 400 + 32 records) read deep in C.
    expect(deep.sqlCounts).toBe(2);
    expect(deep.deepReads).toBe(1);
    // Exact from then on (the deep read's halves counted every record), whatever the bound.
    for (const [offset, bound] of [
      [1_200, null],
      [1_300, 400],
      [1_400, null],
    ] as [number, number | null][])
      expect(await deep.textSearch(bounded(offset, bound), { q: "middle", field: null }), `${offset} ${bound}`).toEqual(
        await plain(bounded(offset, bound)),
      );
    expect(deep.deepReads).toBe(1);
    expect(deep.sqlCounts).toBe(2);
    // A filter: not the kept total (the unfiltered one's), counted as before.
    const completed: SearchFilter = { type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] };
    const filtered = queryOf("middle", 0, 10, [completed]);
    expect(await deep.textSearch(filtered, { q: "middle", field: null })).toEqual(await plain(filtered));
    const beforeWrite = deep.sqlCounts;
    // Records deleted: the index moved, the total is counted again.
    await store.db
      .deleteFrom("records")
      .where("id", "in", ids.filter((_, i) => i % 11 === 4).slice(0, 40))
      .execute();
    await textIndexFor(store.db)?.catchUp();
    expect(await deep.textSearch(bounded(1_500, null), { q: "middle", field: null })).toEqual(await plain(bounded(1_500, null)));
    expect(deep.sqlCounts).toBe(beforeWrite + 1);
  }, 120_000);

  it("gives the same pages after records are deleted between pages, with filters, and for no match or an empty query", async () => {
    const deep = new SqliteText(store.db);
    const first = queryOf("common", 600, 100);
    expect(await deep.textSearch(first, { q: "common", field: null })).toEqual(await plain(first));
    const before = deep.deepReads;
    expect(before).toBe(1);
    // Deleted between two pages: the index moved, the ranking is read again, without the deleted records.
    await store.db
      .deleteFrom("records")
      .where("id", "in", ids.filter((_, i) => i % 7 === 3).slice(0, 200))
      .execute();
    await textIndexFor(store.db)?.catchUp();
    for (const offset of [700, 1_200, 2_000]) {
      const query = queryOf("common", offset, 100);
      expect(await deep.textSearch(query, { q: "common", field: null }), `at ${offset}`).toEqual(await plain(query));
    }
    expect(deep.deepReads).toBe(2);
    const completed: SearchFilter = { type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] };
    for (const [q, filters] of [
      ["common", [completed]],
      ["middle", [completed]],
      ["nothingsuch", []],
      ["", []],
    ] as [string, SearchFilter[]][]) {
      const query = queryOf(q, 500, 50, filters);
      expect(await deep.textSearch(query, { q, field: null }), `${q} ${filters.length}`).toEqual(await plain(query));
    }
  }, 120_000);

  it("gives the same pages with the rows' lengths from the threads' table of every row's length, not a stale one", async () => {
    const pool = readPoolFor(store.db)!;
    /** A deep page read in C by a searcher with nothing kept, equal to FTS5's; whether its lengths came from the table. */
    const deepPage = async (q: string, offset: number) => {
      const before = pool.lengthsFullReads;
      const deep = new SqliteText(store.db);
      const query = queryOf(q, offset, 100);
      expect(await deep.textSearch(query, { q, field: null }), `${q} at ${offset}`).toEqual(await plain(query));
      expect(deep.deepReads).toBe(1);
      return pool.lengthsFullReads - before;
    };
    /** Deletes `n` records (every fifth from the `r`-th) and waits for the text index. */
    const deleteSome = async (r: number, n: number) => {
      await store.db
        .deleteFrom("records")
        .where("id", "in", ids.filter((_, i) => i % 5 === r).slice(0, n))
        .execute();
      await textIndexFor(store.db)?.catchUp();
    };
    /** Deep pages until both halves read the table (the threads load it after a deep read at a new index version). */
    const untilFull = async (q: string) => {
      for (let i = 0; i < 20; i++) if ((await deepPage(q, 450 + 10 * i)) === pool.size) return i;
      return -1;
    };
    expect(await untilFull("common")).toBeGreaterThanOrEqual(0);
    // Every later word of this index version reads the table from its first page.
    expect(await deepPage("middle", 500)).toBe(pool.size);
    // Records deleted: the table is the old version's, not read; the new version's is loaded and read.
    await deleteSome(1, 150);
    expect(await deepPage("common", 520)).toBe(0);
    expect(await untilFull("middle")).toBeGreaterThanOrEqual(0);
    expect(await deepPage("common", 1_100)).toBe(pool.size);

    // Loaded ahead when the index settles (warm-up.ts): the first deep page after a write reads the table; a dataset of
    // fewer seqs than asked for loads none.
    await deleteSome(2, 100);
    expect(await loadRowLengthsFor(store.db)).toBeNull();
    expect(await deepPage("middle", 610)).toBe(0);
    await deleteSome(3, 100);
    expect(await loadRowLengthsFor(store.db, 1_000)).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await deepPage("middle", 640)).toBe(pool.size);
  }, 120_000);

  it("merges two halves' records in (score, rowid) order, ties by rowid", () => {
    const a = { fr: Float64Array.of(5, 9, 20), bm: Float64Array.of(-3, -2, -2) };
    const b = { fr: Float64Array.of(7, 8, 30), bm: Float64Array.of(-3, -2, -1) };
    const m = mergeByScore(a, b, 5);
    expect(Array.from(m.fr)).toEqual([5, 7, 8, 9, 20]);
    expect(Array.from(m.bm)).toEqual([-3, -3, -2, -2, -2]);
    expect(mergeByScore(a, { fr: new Float64Array(0), bm: new Float64Array(0) }, 9).fr).toEqual(a.fr);
  });
});
