import { type Kysely, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { up, WORDS_TERMS_INDEX_SPEC } from "../db/migrations/postgres/0031-record-search-words-terms.js";
import type { Store } from "../db/store.js";
import { openPostgresStore } from "../db/postgres.js";
import { createTestDatabase, indexesOf, openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { queryRows } from "./postgres-sql.js";
import { PostgresBackgroundIndex } from "./postgres-background-index.js";
import { PostgresSearch } from "./postgres-search.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { expectSameOrLowerTotal, insertRecords, seedSearchData, TEST_FILTERS, answerWhere } from "./search-port.suite.js";

const sources = ["news", "wiki", "forum", "blog", "mail"];

/**
 * `record_search`'s index of words and metadata terms (migration 0031): created by the migration on an empty
 * table, built in the background with CREATE INDEX CONCURRENTLY on a table with rows (postgres-background-index.ts),
 * the two indexes of 0025 serving until it is valid. On a real PostgreSQL only (PGlite runs one connection).
 */
describe.skipIf(!testDatabaseUrl())("PostgreSQL: record_search's index of words and terms (migration 0031)", () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  const indexes = () => indexesOf(store.db, "record_search");

  beforeAll(async () => {
    store = await openTestPostgresStore();
    data = await seedSearchData(store);
    await insertRecords(store, data.ids.other, 20, (i) => ({
      external_id: `o-${i}`,
      fields: JSON.stringify({ text: "lumen quartz other" }),
      metadata: JSON.stringify({ source: sources[i % 5], quality: 0.5 }),
    }));
    const added = await insertRecords(store, data.ids.ds, 400, (i) => ({
      external_id: `w-${i}`,
      fields: JSON.stringify({
        text: `lumen ${i % 3 === 0 ? "quartz" : "slate"} ${i % 3 === 0 && i % 2 === 0 ? "quartz" : ""} ${i % 17 === 0 ? "rare" : ""}`,
      }),
      metadata: JSON.stringify({ source: i % 9 === 0 ? [sources[i % 5], "mail"] : sources[i % 5], quality: (i % 10) / 10 }),
    }));
    await answerWhere(store, added, (i) => i % 6 === 0, data.ids.u1, "submitted");
    await sql`analyze record_search`.execute(store.db);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const { pending } = TEST_FILTERS;
  const source = (...values: string[]): SearchFilter => ({ type: "terms", scope: { entity: "metadata", name: "source" }, values });
  const quality: SearchFilter = { type: "range", scope: { entity: "metadata", name: "quality" }, ge: 0.25, le: 0.75 };
  const queries = (): SearchQuery[] =>
    ["lumen", "quartz", "rare", "nothing", ""].flatMap((q) =>
      [[source("news")], [pending, source("wiki", "mail"), quality], [source("nowhere")], [quality]].flatMap((filters) =>
        [data.ids.ds, data.ids.other].flatMap((datasetId) =>
          [
            [0, 10, 10_000],
            [0, 10, 12],
            [20, 30, 25],
          ].map(([offset, limit, totalBound]) => ({
            datasetId,
            userId: data.ids.u1,
            text: { q, field: null },
            vector: null,
            sort: [],
            offset: offset!,
            limit: limit!,
            filters,
            totalBound,
            filterBound: totalBound,
          })),
        ),
      ),
    );
  /**
   * Every query through a fresh adapter equals the plain SQL path's answer (a total counted from some of the
   * records may be a lower bound of the plain one, never above it); the exact counts among them are equal.
   */
  const sameAsPlain = async (ready: boolean) => {
    const plain = new PostgresSearch(store.db, { vectorSearch: false, textCache: false, rankAhead: false });
    const cached = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false });
    expect(await cached.wordsTerms.ready()).toBe(ready);
    let exact = 0;
    for (const q of queries()) {
      const expected = await plain.search(q);
      const got = await cached.search(q);
      expectSameOrLowerTotal(got, expected, q, JSON.stringify(q));
      if (!got.totalIsLowerBound) exact++;
    }
    expect(exact).toBeGreaterThan(60);
    // The queries find something: the comparison is not of empty pages.
    expect((await plain.search(queries()[0]!)).total).toBeGreaterThan(20);
  };

  it("is created by the migration on an empty table, replacing 0025's two indexes", async () => {
    const fresh = await createTestDatabase(testDatabaseUrl()!);
    const empty = await openPostgresStore(fresh.url, { poolSize: 1 });
    try {
      const names = await queryRows<{ name: string }>(
        empty.db,
        "SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'record_search'::regclass ORDER BY 1",
        [],
      );
      expect(names.map((r) => r.name)).toEqual(["record_search_pkey", "record_search_tsv_terms_gin"]);
      expect(await new PostgresSearch(empty.db, { vectorSearch: false }).wordsTerms.ready()).toBe(true);
    } finally {
      await empty.close();
      await fresh.drop();
    }
  });

  it("answers identically with 0025's indexes, during the concurrent build, and with the new index; writes go on during the build", async () => {
    // A database as before 0031's build: 0025's two indexes. The migration leaves a table with rows alone.
    await sql`DROP INDEX record_search_tsv_terms_gin`.execute(store.db);
    await sql`CREATE INDEX record_search_tsv_gin ON record_search USING gin (tsv)`.execute(store.db);
    await sql`CREATE INDEX record_search_terms_gin ON record_search USING gin (terms)`.execute(store.db);
    await up(store.db as unknown as Kysely<unknown>);
    expect(await indexes()).toEqual(["record_search_terms_gin", "record_search_tsv_gin"]);
    await sameAsPlain(false);

    // The build waits for a transaction that writes record_search: searches meanwhile keep the old indexes.
    const writer = new pg.Client({ connectionString: store.databaseUrl! });
    await writer.connect();
    const job = new PostgresBackgroundIndex(store.db, WORDS_TERMS_INDEX_SPEC, { replacedMs: 60_000 });
    let build: Promise<void> | null = null;
    try {
      await writer.query("BEGIN");
      await writer.query("LOCK TABLE record_search IN ROW EXCLUSIVE MODE");
      build = job.tick();
      await expect
        .poll(indexes, { timeout: 20_000 })
        .toEqual(["record_search_terms_gin", "record_search_tsv_gin", "record_search_tsv_terms_gin (invalid)"]);
      await sameAsPlain(false);
      // Another transaction's write to record_search is not held by the build.
      await insertRecords(store, data.ids.ds, 3, (i) => ({
        external_id: `during-${i}`,
        fields: JSON.stringify({ text: "lumen quartz during" }),
        metadata: JSON.stringify({ source: "news", quality: 0.5 }),
      }));
      await sameAsPlain(false);
    } finally {
      await writer.query("ROLLBACK");
      await writer.end();
    }
    await build;
    expect(await indexes()).toEqual(["record_search_terms_gin", "record_search_tsv_gin", "record_search_tsv_terms_gin"]);
    expect(await job.ready()).toBe(true);
    await sameAsPlain(true);
    // The old indexes are kept REPLACED_MS after the new one is valid, then dropped.
    await job.tick();
    expect(await indexes()).toEqual(["record_search_terms_gin", "record_search_tsv_gin", "record_search_tsv_terms_gin"]);
    await new PostgresBackgroundIndex(store.db, WORDS_TERMS_INDEX_SPEC, { replacedMs: 0 }).tick();
    expect(await indexes()).toEqual(["record_search_tsv_terms_gin"]);
    await sameAsPlain(true);
    // A word and a metadata term are found in one scan of the new index (no BitmapAnd of two).
    // (A table this small is scanned whole unless told not to.)
    const plan = await store.db.transaction().execute(async (trx) => {
      await sql`SELECT set_config('enable_seqscan', 'off', true)`.execute(trx);
      return queryRows<{ "QUERY PLAN": string }>(
        trx,
        "EXPLAIN SELECT 1 FROM record_search r WHERE r.tsv @@ plainto_tsquery('tessera_search', 'quartz') AND r.terms && ARRAY[E'source\\x1fsnews']",
        [],
      );
    });
    const text = plan.map((r) => r["QUERY PLAN"]).join("\n");
    expect(text).toContain("record_search_tsv_terms_gin");
    expect(text).not.toContain("BitmapAnd");
  }, 180_000);

  it("waits for the index it comes after before building", async () => {
    await sql`DROP INDEX IF EXISTS record_search_tsv_terms_gin`.execute(store.db);
    await sql`CREATE INDEX IF NOT EXISTS record_search_tsv_gin ON record_search USING gin (tsv)`.execute(store.db);
    let before = false;
    const job = new PostgresBackgroundIndex(store.db, WORDS_TERMS_INDEX_SPEC, { replacedMs: 0, after: async () => before });
    await job.tick();
    expect(await indexes()).toEqual(["record_search_tsv_gin"]);
    before = true;
    await job.tick();
    expect(await indexes()).toEqual(["record_search_tsv_gin", "record_search_tsv_terms_gin"]);
    await job.tick();
    expect(await indexes()).toEqual(["record_search_tsv_terms_gin"]);
    await sameAsPlain(true);
  }, 120_000);
});
