import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { addTextRecords, addTextRecordsWithSeqs } from "../testing/text-records.js";
import { occurrenceScoreSql } from "./postgres-occurrence-score.js";
import { type Builder, queryRows } from "./postgres-sql.js";
import { singlesBySeq } from "./postgres-text-singles-seq.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { seedSearchData, TEST_FILTERS } from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

/** Record i of the test dataset: `fig` twice in every 5th (listed, excluded here), once in every other 2nd; genre news in every 3rd. */
const recordOf = (i: number) => ({
  text: i % 5 === 0 ? "fig and fig" : i % 2 === 0 ? "fig" : "pear",
  context: "nothing",
  metadata: { genre: i % 3 === 0 ? "news" : "blog" },
});

/**
 * The single occurrences of a word by seq (singlesBySeq): the dataset's first records that match the word, pass the filters
 * and are `among`, in seq order, the first `skip` without a score, the others scored as one occurrence.
 */
describe(`PostgreSQL text search: a word's single occurrences by seq (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  let records: { i: number; id: string; seq: number }[];
  let one: number;
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    ids = (await seedSearchData(store)).ids;
    // Another dataset's records of the word first: never among the answers.
    await addTextRecords(store.db, ids.other, [{ text: "fig", context: "fig" }], "o");
    records = await addTextRecordsWithSeqs(
      store.db,
      ids.ds,
      Array.from({ length: 80 }, (_, i) => recordOf(i)),
      "f",
    );
    one = (await queryRows<{ score: number }>(store.db, `SELECT ${occurrenceScoreSql("1")} AS score`, []))[0]!.score;
  }, 120_000);
  afterAll(async () => store?.close());

  const query = (filters: SearchFilter[] = []): SearchQuery => ({
    datasetId: ids.ds,
    userId: ids.u1,
    text: { q: "fig", field: null },
    vector: null,
    sort: [],
    filters,
    offset: 0,
    limit: 10,
  });
  const listed = () => records.filter((r) => r.i % 5 === 0).map((r) => r.seq);
  const notListed = (b: Builder) => `NOT (r.seq = ANY(${b.p(`{${listed().join(",")}}`)}::bigint[]))`;
  const singles = (keep: (i: number) => boolean = () => true) => records.filter((r) => r.i % 5 !== 0 && r.i % 2 === 0 && keep(r.i));

  it("gives the first records that match and are not listed, in seq order, scored as one occurrence after the first `skip`", async () => {
    const found = await singlesBySeq(store.db, query(), "fig", notListed, 6, 2, false);
    expect(found.map((r) => [r.seq, r.id])).toEqual(
      singles()
        .slice(0, 6)
        .map((r) => [r.seq, r.id]),
    );
    expect(found.map((r) => r.score)).toEqual([null, null, one, one, one, one]);
    // Fewer than asked: every one; skip below 0 (the page began among the listed records): every one scored.
    const all = await singlesBySeq(store.db, query(), "fig", notListed, 1_000, -3, false);
    expect(all.map((r) => r.id)).toEqual(singles().map((r) => r.id));
    expect(all.every((r) => r.score === one)).toBe(true);
  }, 60_000);

  it("keeps those that pass the filters (in seq order through the word's GIN entry when `few`), or those of a part of the records", async () => {
    const news = singles((i) => i % 3 === 0).map((r) => r.id);
    expect(news.length).toBeGreaterThan(4);
    for (const few of [false, true])
      expect((await singlesBySeq(store.db, query([TEST_FILTERS.genre]), "fig", notListed, 4, 0, few)).map((r) => r.id)).toEqual(
        news.slice(0, 4),
      );
    // A part of the records not listed (as pageWithin takes the caller's answered records in parts).
    const part = records.filter((r) => r.i >= 40 && r.i % 5 !== 0).map((r) => r.seq);
    const among = (b: Builder) => `r.seq = ANY(${b.p(`{${part.join(",")}}`)}::bigint[])`;
    expect((await singlesBySeq(store.db, query(), "fig", among, 3, 0, false)).map((r) => r.id)).toEqual(
      singles((i) => i >= 40)
        .slice(0, 3)
        .map((r) => r.id),
    );
  }, 60_000);
});
