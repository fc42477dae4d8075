import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { addTextRecordsWithSeqs } from "../testing/text-records.js";
import { queryRows, textVersion } from "./postgres-sql.js";
import type { RankedAhead } from "./postgres-rank-ahead.js";
import { listedThenSingles } from "./postgres-text-ahead-listed.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { seedSearchData, TEST_FILTERS } from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

/** Record i of the test dataset: `kiwi` twice in every 3rd (the list), once in the other even ones; genre news in every 4th. */
const recordOf = (i: number) => ({
  text: i % 3 === 0 ? "kiwi and kiwi" : i % 2 === 0 ? "kiwi" : "plum",
  context: "nothing",
  metadata: { genre: i % 4 === 0 ? "news" : "blog" },
});

/**
 * A page of a word ranked ahead in its two steps (listedThenSingles): the listed records that pass, in the list's order and
 * scored, then the records the mode's `singles` gives, asked for the count and offset still needed; null when the list cannot
 * give the page or `singles` cannot.
 */
describe(`PostgreSQL text search: the listed records, then the single occurrences (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  /** The test records in insertion order (seq ascending). */
  let records: { i: number; id: string; seq: number }[];
  /** The list: the records repeating the word, by seq descending (not the records' order: the list's own). */
  let list: { i: number; id: string; seq: number }[];
  let ahead: () => RankedAhead;
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    ids = (await seedSearchData(store)).ids;
    records = await addTextRecordsWithSeqs(
      store.db,
      ids.ds,
      Array.from({ length: 60 }, (_, i) => recordOf(i)),
      "k",
    );
    list = records.filter((r) => r.i % 3 === 0).reverse();
    const version = await textVersion(store.db, ids.ds);
    const matches = records.filter((r) => r.i % 3 === 0 || r.i % 2 === 0).length;
    ahead = () => ({ version, records: matches, repeated: list.length, listed: list.length, seqs: list.map((r) => r.seq), counts: null });
  }, 120_000);
  afterAll(async () => store?.close());

  const query = (offset: number, limit: number, filters: SearchFilter[] = []): SearchQuery => ({
    datasetId: ids.ds,
    userId: ids.u1,
    text: { q: "kiwi", field: null },
    vector: null,
    sort: [],
    filters,
    offset,
    limit,
  });
  /** The plain score of a record for the word: ts_rank of its best matching field. */
  const rank = async (seq: number) =>
    (
      await queryRows<{ score: number }>(
        store.db,
        `SELECT max(ts_rank(f.tsv, plainto_tsquery('tessera_search', 'kiwi')))::float8 AS score FROM records_fts f
          WHERE f.record_seq = $1 AND f.tsv @@ plainto_tsquery('tessera_search', 'kiwi')`,
        [seq],
      )
    )[0]!.score;
  /** A stand-in for a mode's single occurrences: `n` counted from the first, those from the `skip`-th on, named by their place. */
  const stub = (calls: [number, number][]) => async (n: number, skip: number) => {
    calls.push([n, skip]);
    return Array.from({ length: n - Math.max(0, skip) }, (_, k) => ({ id: `single-${Math.max(0, skip) + k}`, score: 0.25 }));
  };

  it("gives the listed records in the list's order with their scores, then the single occurrences the page still needs", async () => {
    const calls: [number, number][] = [];
    // Inside the list: the single occurrences not asked for.
    const inside = await listedThenSingles(store.db, query(2, 5), "kiwi", ahead(), undefined, stub(calls));
    expect(inside!.map((h) => h.recordId)).toEqual(list.slice(2, 7).map((r) => r.id));
    for (const [k, hit] of inside!.entries()) expect(hit.score).toBeCloseTo(await rank(list[2 + k]!.seq), 6);
    expect(calls).toEqual([]);
    // Across the list's end: its last two records, then the first three single occurrences (asked from before the offset: -2).
    const across = await listedThenSingles(store.db, query(list.length - 2, 5), "kiwi", ahead(), undefined, stub(calls));
    expect(across!.map((h) => h.recordId)).toEqual([...list.slice(-2).map((r) => r.id), "single-0", "single-1", "single-2"]);
    expect(calls).toEqual([[3, -2]]);
    // Past it: the single occurrences from the page's offset among them.
    calls.length = 0;
    const past = await listedThenSingles(store.db, query(list.length + 4, 3), "kiwi", ahead(), undefined, stub(calls));
    expect(past).toEqual(["single-4", "single-5", "single-6"].map((recordId) => ({ recordId, score: 0.25 })));
    expect(calls).toEqual([[7, 4]]);
  }, 60_000);

  it("keeps the listed records that pass the filters, or those among `within`, in the list's order", async () => {
    const calls: [number, number][] = [];
    const news = list.filter((r) => recordOf(r.i).metadata.genre === "news");
    expect(news.length).toBeGreaterThan(2);
    const filtered = await listedThenSingles(store.db, query(1, 2, [TEST_FILTERS.genre]), "kiwi", ahead(), undefined, stub(calls));
    expect(filtered!.map((h) => h.recordId)).toEqual(news.slice(1, 3).map((r) => r.id));
    // Among some of the records (ascending seqs), no filter left: the list read on until it holds the page's.
    const some = list.filter((_, k) => k % 3 === 1);
    const within = Float64Array.from(some.map((r) => r.seq).sort((x, y) => x - y));
    const among = await listedThenSingles(store.db, query(0, some.length), "kiwi", ahead(), within, stub(calls));
    expect(among!.map((h) => h.recordId)).toEqual(some.map((r) => r.id));
    expect(calls).toEqual([]);
  }, 60_000);

  it("gives null past a list that is not every repeating record, and when the single occurrences cannot be given", async () => {
    const calls: [number, number][] = [];
    const short = { ...ahead(), repeated: list.length + 1 };
    expect(await listedThenSingles(store.db, query(list.length - 1, 3), "kiwi", short, undefined, stub(calls))).toBeNull();
    expect(calls).toEqual([]);
    expect(await listedThenSingles(store.db, query(list.length - 1, 3), "kiwi", ahead(), undefined, async () => null)).toBeNull();
  }, 60_000);
});
