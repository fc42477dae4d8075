import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { PostgresSearch } from "./postgres-search.js";
import { filterCount } from "./postgres-filter-total.js";
import { queryRows, textCount } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import {
  seedSearchData,
  answerAndComplete,
  insertRecords,
  expectSameOrLowerTotal,
  TEST_FILTERS,
  answerWhere,
  completeWhere,
} from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;
const WORDS = ["alpha", "beta", "gamma", "delta", "rare"];

/** Deterministic texts: each word in some records, some in one field only, `rare` in few. */
function textOf(i: number, salt: number): string {
  const words: string[] = [];
  for (const [k, word] of WORDS.entries()) {
    const x = (i * 7 + k * 13 + salt * 5) % 17;
    if (word === "rare" ? i % 23 === salt % 23 : x >= 5) words.push(word);
    words.push(`filler${(i + k + salt) % 9}`);
  }
  return words.join(" ");
}

/** Metadata of every shape the filters compare: single values, lists, other types, missing keys. */
function metadataOf(i: number): Record<string, unknown> {
  const m: Record<string, unknown> = {};
  if (i % 11 !== 0) m.genre = i % 13 === 0 ? ["news", "blog"] : ["news", "blog", "wiki"][i % 3];
  if (i % 9 !== 0) m.score = i % 17 === 0 ? [0.1, (i % 100) / 100] : i % 19 === 0 ? "high" : (i % 100) / 100;
  if (i % 4 === 0) m.year = 2000 + (i % 25);
  if (i % 3 !== 2) m.flag = i % 3 === 0;
  if (i % 8 === 5) m.note = null;
  return m;
}

/** The metadata as stored JSON: some numbers written with trailing zeros (`1.50`, `2010.0`), equal to `1.5` and `2010` for jsonb. */
function metadataText(i: number): string {
  const text = JSON.stringify({ ...metadataOf(i), price: i % 5 === 0 ? "@1.50" : i % 5 === 1 ? [1.5, 3] : 2 });
  return i % 4 === 0 && i % 25 === 10
    ? text.replace('"@1.50"', "1.50").replace('"year":2010', '"year":2010.0')
    : text.replace('"@1.50"', "1.50");
}

const { pending, statusPending, genre } = TEST_FILTERS;
const genres: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog", "wiki"] };
const score: SearchFilter = { type: "range", scope: { entity: "metadata", name: "score" }, ge: 0.25, le: 0.75 };
const scoreFrom: SearchFilter = { type: "range", scope: { entity: "metadata", name: "score" }, ge: 0.5, le: null };
const year: SearchFilter = { type: "range", scope: { entity: "metadata", name: "year" }, ge: null, le: 2010 };
const years: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "year" }, values: [2010, 2004] };
const flag: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "flag" }, values: [true] };
const price: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "price" }, values: [1.5] };
const note: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "note" }, values: [null, "x"] };
const nested: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "score" }, values: [[0.1, 0.2], 0.5] };
const externalId: SearchFilter = { type: "range", scope: { entity: "record", property: "external_id" }, ge: "r-100", le: null };

describe(`PostgreSQL text search totals over record_search (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  it("counts every filter shape as the join of records and records_fts does, before and after writes, and reads record_search", async () => {
    const { ids } = await seedSearchData(store);
    const ds = ids.ds;
    const insert = (datasetId: string, from: number, n: number, salt = 0) =>
      insertRecords(store, datasetId, n, (j) => ({
        external_id: `r-${from + j}`,
        fields: JSON.stringify({ text: textOf(from + j, salt), summary: textOf(from + j, salt + 1), n: from + j }),
        metadata: metadataText(from + j),
      }));
    const added = await insert(ds, 0, 200);
    await insert(ids.other, 0, 40, 3); // another dataset's records never count
    await answerAndComplete(store, added, ids.u1);

    const search = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false });
    const queries: SearchQuery[] = [];
    for (const userId of [null, ids.u1])
      for (const filters of [
        [genre],
        [pending, statusPending, genre, score],
        [pending, genres, scoreFrom],
        [statusPending, year],
        [score, year, genre],
        [pending, externalId, genre],
        [years, flag],
        [pending, price],
        [note],
        [nested, genres],
      ])
        for (const [q, field] of [
          ["alpha", null],
          ["Gamma", null],
          ["rare", null],
          ["alpha beta", null],
          ["gam*", null],
          ["delta", "summary"],
          ["nothing", null],
        ] as const)
          for (const totalBound of [null, 7, 10_000])
            queries.push({ datasetId: ds, userId, text: { q, field }, vector: null, filters, sort: [], offset: 0, limit: 5, totalBound });
    /** The exact count over records and records_fts, no index (what the totals counted before record_search). */
    const exact = async (q: SearchQuery) => {
      const { sql: text, params } = textCount(q, null, true);
      return Number((await queryRows<{ n: number | string }>(store.db, text, params))[0]!.n);
    };
    const same = async (label: string) => {
      let nonZero = 0;
      for (const q of queries) {
        const n = await exact(q);
        if (n > 0) nonZero++;
        const bound = q.totalBound ?? null;
        const expected = bound !== null && n > bound ? { total: bound, totalIsLowerBound: true } : { total: n };
        const got = await search.search(q);
        expectSameOrLowerTotal(got, { hits: got.hits, ...expected }, q, `${label}: ${JSON.stringify(q)}`);
      }
      expect(nonZero).toBeGreaterThan(queries.length / 2); // the shapes find records
    };
    /** record_search equals what the records and their tsvectors say (the words; positions follow the fields' order). */
    const mirrored = async () => {
      const rows = (
        await sql<{ n: number }>`select count(*) as n from (
          (select seq, id, dataset_id, status, metadata, terms, strip(tsv)::text from record_search
           except select r.seq, r.id, r.dataset_id, r.status, r.metadata, tessera_metadata_terms(r.metadata),
             strip(coalesce((select tessera_tsvector_concat(f.tsv) from records_fts f where f.record_seq = r.seq), ''))::text from records r)
          union all
          (select r.seq, r.id, r.dataset_id, r.status, r.metadata, null, null from records r where not exists (select 1 from record_search x where x.seq = r.seq))) d`.execute(
          store.db,
        )
      ).rows;
      expect(Number(rows[0]!.n)).toBe(0);
    };
    await same("seeded");
    await mirrored();

    // Metadata, status, fields and responses change, records are added and deleted: record_search follows.
    for (const [i, r] of added.entries()) {
      if (i % 6 === 1)
        await store.db
          .updateTable("records")
          .set({ metadata: metadataText(i + 1) })
          .where("id", "=", r.id)
          .execute();
    }
    await completeWhere(store, added, (i) => i % 4 === 3);
    await store.db
      .updateTable("records")
      .set({
        fields: JSON.stringify({ text: "rare rare alpha", summary: "delta" }),
        metadata: JSON.stringify({ genre: "news", score: 0.5 }),
      })
      .where("id", "=", added[10]!.id)
      .execute();
    await store.db
      .deleteFrom("records")
      .where(
        "id",
        "in",
        added.filter((_, i) => i % 13 === 2).map((r) => r.id),
      )
      .execute();
    await insert(ds, 200, 30, 5);
    await answerWhere(store, added, (i) => i % 5 === 1 && i % 13 !== 2, ids.u1, "draft");
    await mirrored();
    await same("after writes");

    // The count reads record_search: a row changed there alone changes the total.
    const query: SearchQuery = { ...queries[0]!, text: { q: "rare", field: null }, filters: [genre], totalBound: null };
    const before = (await search.search(query)).total;
    const [extra] = (
      await sql<{
        seq: string;
      }>`select x.seq from record_search x where x.dataset_id = ${ds} and x.tsv @@ plainto_tsquery('tessera_search', 'rare')
        and not (x.metadata @> '{"genre":"news"}' or x.metadata @> '{"genre":["news"]}') limit 1`.execute(store.db)
    ).rows;
    expect(extra).toBeDefined();
    await sql`update record_search set metadata = '{"genre":"news"}', terms = tessera_metadata_terms('{"genre":"news"}') where seq = ${extra!.seq}`.execute(
      store.db,
    );
    expect((await search.search(query)).total).toBe(before + 1);
    expect(await exact(query)).toBe(before);
  }, 240_000);

  it("counts the records of filters without text (bounded and exact) as records do, and reads record_search", async () => {
    const { ids } = await seedSearchData(store);
    const ds = ids.ds;
    const added = await insertRecords(store, ds, 150, (i) => ({
      external_id: `r-${i}`,
      fields: JSON.stringify({ text: textOf(i, 0) }),
      metadata: metadataText(i),
    }));
    await answerAndComplete(store, added, ids.u1);
    const search = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false });
    const exact = async (q: SearchQuery) => {
      const { sql: text, params } = filterCount(q, null, true);
      return Number((await queryRows<{ n: number | string }>(store.db, text, params))[0]!.n);
    };
    const queries: SearchQuery[] = [];
    for (const userId of [null, ids.u1])
      for (const filters of [
        [genre],
        [pending, statusPending, genre, score],
        [pending, genres, scoreFrom],
        [score, year, genre],
        [pending, externalId, genre],
        [years, flag],
        [note],
        [nested, genres],
      ])
        for (const totalBound of [null, 7, 10_000])
          queries.push({ datasetId: ds, userId, text: null, vector: null, filters, sort: [], offset: 0, limit: 5, totalBound });
    let nonZero = 0;
    for (const q of queries) {
      const n = await exact(q);
      if (n > 0) nonZero++;
      const bound = q.totalBound ?? null;
      const expected = bound !== null && n > bound ? { total: bound, totalIsLowerBound: true } : { total: n };
      const { total, totalIsLowerBound } = await search.search(q);
      expect({ total, ...(totalIsLowerBound ? { totalIsLowerBound } : {}) }, JSON.stringify(q)).toEqual(expected);
    }
    expect(nonZero).toBeGreaterThan(queries.length / 2);
    // The count reads record_search (narrow rows) when the filters allow: a row changed there alone changes the total.
    const query: SearchQuery = { ...queries[0]!, filters: [genre], totalBound: null };
    const before = (await search.search(query)).total;
    const [extra] = (
      await sql<{
        seq: string;
      }>`select x.seq from record_search x where x.dataset_id = ${ds} and not (x.metadata @> '{"genre":"news"}' or x.metadata @> '{"genre":["news"]}') limit 1`.execute(
        store.db,
      )
    ).rows;
    await sql`update record_search set metadata = '{"genre":"news"}', terms = tessera_metadata_terms('{"genre":"news"}') where seq = ${extra!.seq}`.execute(
      store.db,
    );
    expect((await search.search(query)).total).toBe(before + 1);
    expect(await exact(query)).toBe(before);
    // A filter on what record_search does not hold (external_id) counts over records.
    expect(filterCount({ ...query, filters: [externalId, genre] }, null).sql).toContain("FROM records r");
  }, 120_000);
});
