import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { indexesOf, openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { openPostgresStore } from "../db/postgres.js";
import { metadataSortIndexName, metadataSortKey, literal, PostgresMetadataSortIndexes } from "./postgres-metadata-sort.js";
import { PostgresSearch } from "./postgres-search.js";
import { Builder, queryRows } from "./postgres-sql.js";
import { walkSource } from "./postgres-sorted.js";
import type { SearchFilter, SearchQuery, SearchSort } from "./search-port.js";
import {
  expectSameOrLowerTotal,
  insertMetadataProperty,
  insertRecords,
  seedSearchData,
  TEST_FILTERS,
  answerWhere,
  completeWhere,
} from "./search-port.suite.js";

const N = 2_400;

/**
 * Sorts by a metadata property through its index (postgres-metadata-sort.ts, postgres-sorted.ts): the same records
 * in the same order as the plain query before and after the index is built, with and without text, the queue and
 * other filters, pages beyond the first; indexes follow the properties (added after the records, deleted, the
 * dataset deleted). On a real PostgreSQL only (CREATE INDEX CONCURRENTLY: PGlite runs one connection).
 */
describe.skipIf(!testDatabaseUrl())("PostgreSQL: sorts by a metadata property through its index", () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  const options = { vectorSearch: false, rankAhead: false, textVocabulary: false } as const;

  const property = async (datasetId: string, name: string, type: "integer" | "float" | "terms") => {
    await insertMetadataProperty(store, datasetId, name, type);
  };
  const valid = async () => (await indexesOf(store.db, "records")).filter((n) => n.startsWith("records_msort_")).sort();

  beforeAll(async () => {
    store = await openTestPostgresStore();
    ({ ids } = await seedSearchData(store));
    // `length` an integer with ties (7 values), `quality` a float (50 values, negative ones), `source` terms (a list on
    // every 8th); every 11th record without metadata, every 23rd with JSON nulls; `late` a property added afterwards.
    const shape = (prefix: string) => (i: number) => ({
      external_id: `${prefix}-${i}`,
      fields: JSON.stringify({
        text: `every ${i % 2 === 0 ? "half" : "odd"} ${i % 10 === 0 ? "tenth" : ""} ${i % 800 === 5 ? "rare" : ""}`,
      }),
      metadata: JSON.stringify(
        i % 11 === 0
          ? {}
          : i % 23 === 0
            ? { length: null, quality: null, source: null }
            : {
                length: i % 7,
                quality: ((i * 13) % 50) / 10 - 1,
                source: i % 8 === 0 ? ["news", "wiki"] : ["news", "wiki", "forum", "blog"][i % 4],
                late: (i * 3) % 5,
              },
      ),
    });
    await insertRecords(store, ids.other, 50, shape("o"));
    const added = await insertRecords(store, ids.ds, N, shape("d"));
    await insertRecords(store, ids.other, 50, shape("p"));
    await answerWhere(store, added, (i) => i % 5 === 0, ids.u1, "submitted");
    await completeWhere(store, added, (i) => i % 17 === 0);
    // Equal numbers written differently (2.0 and 2: one key, ties by seq) and a few values of another JSON type (a string sorts below numbers).
    await sql`UPDATE records SET metadata = metadata || '{"length": 2.0}'::jsonb WHERE dataset_id = ${ids.ds} AND seq % 13 = 0 AND metadata->>'length' = '2'`.execute(
      store.db,
    );
    await sql`UPDATE records SET metadata = metadata || '{"length": "n/a"}'::jsonb WHERE dataset_id = ${ids.ds} AND seq % 101 = 0 AND metadata ? 'length'`.execute(
      store.db,
    );
    for (const name of ["length", "quality", "source"] as const)
      await property(ids.ds, name, name === "source" ? "terms" : name === "length" ? "integer" : "float");
    await property(ids.other, "length", "integer");
    await sql`ANALYZE`.execute(store.db);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const { pending, completed } = TEST_FILTERS;
  const news: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "source" }, values: ["news"] };
  const longer: SearchFilter = { type: "range", scope: { entity: "metadata", name: "length" }, ge: 3, le: null };
  const sortsOf = (names: string[]): SearchSort[] =>
    names.flatMap((name) => (["asc", "desc"] as const).map((order) => ({ scope: { entity: "metadata" as const, name }, order })));
  const query = (sort: SearchSort, filters: SearchFilter[], text: string | null, more: Partial<SearchQuery> = {}): SearchQuery => ({
    datasetId: ids.ds,
    userId: null,
    text: text === null ? null : { q: text, field: null },
    vector: null,
    filters,
    sort: [sort],
    offset: 0,
    limit: 10,
    ...more,
  });

  /** Every sort of `names` with the filter sets, texts and pages below, through `ports`, as the plain query answers them. */
  const compare = async (names: string[], ports: PostgresSearch[], datasetId = ids.ds) => {
    const plain = new PostgresSearch(store.db, { ...options, sortedWalk: false });
    const filterSets: [SearchFilter[], string | null][] = [
      [[], null],
      [[pending], ids.u1],
      [[pending], null],
      [[completed], null],
      [[pending, news], ids.u1],
      [[longer, news], null],
    ];
    let nonEmpty = 0;
    for (const sort of sortsOf(names))
      for (const [filters, userId] of filterSets)
        for (const text of [null, "every", "half", "tenth", "rare", "nowhere", "ev*"])
          for (const page of [{}, { offset: 495 }, { offset: N - 5 }, { limit: 0 }]) {
            const q = query(sort, filters, text, { userId, datasetId, ...page });
            const label = JSON.stringify({ sort, filters, text, userId, page });
            const expected = await plain.search(q);
            if (expected.hits.length > 0) nonEmpty++;
            for (const port of ports) {
              const got = await port.search(q);
              expect(got.hits, label).toEqual(expected.hits);
              expect(got.total, label).toBe(expected.total);
            }
          }
    expect(nonEmpty).toBeGreaterThan(sortsOf(names).length * 20);
  };

  it("answers by the plain query until the index is built, then walks it with the same answers (three paths)", async () => {
    const before = new PostgresSearch(store.db, options);
    expect(await valid()).toEqual([]);
    await compare(["length"], [before]);
    // No index: the walk is never taken.
    expect(before.sortedPaths).toEqual({ walk: 0, gathered: 0, ties: 0, plain: 0 });

    await before.metadataSorts.tick();
    const names = [
      metadataSortIndexName(ids.ds, "length"),
      metadataSortIndexName(ids.ds, "quality"),
      metadataSortIndexName(ids.ds, "source"),
      metadataSortIndexName(ids.other, "length"),
    ].sort();
    expect(await valid()).toEqual(names);

    const walks = [
      new PostgresSearch(store.db, options),
      // The walk's budget spent at once: the gathered matches (text) or the plain query.
      new PostgresSearch(store.db, { ...options, sortedWalk: { walkRecords: 1 } }),
      new PostgresSearch(store.db, { ...options, sortedWalk: { walkRecords: 30, gatherRecords: 100 } }),
    ];
    await compare(["length", "quality", "source"], walks);
    await compare(["length"], walks, ids.other);
    for (const port of walks) expect(port.sortedPaths.walk, JSON.stringify(port.sortedPaths)).toBeGreaterThan(100);
    expect(walks[1]!.sortedPaths.gathered).toBeGreaterThan(50);
    expect(walks[2]!.sortedPaths.plain).toBeGreaterThan(0);
  }, 600_000);

  it("bounds the total as the unsorted query does", async () => {
    const port = new PostgresSearch(store.db, options);
    await port.metadataSorts.tick();
    const plain = new PostgresSearch(store.db, { ...options, sortedWalk: false });
    for (const sort of sortsOf(["length", "source"]))
      for (const [filters, text] of [
        [[pending], null],
        [[news], null],
        [[pending], "every"],
        [[], "half"],
      ] as [SearchFilter[], string | null][]) {
        const q = query(sort, filters, text, { userId: ids.u1, totalBound: 100, filterBound: 50 });
        expectSameOrLowerTotal(await port.search(q), await plain.search(q), q, JSON.stringify({ sort, filters, text }));
      }
    expect(port.sortedPaths.walk).toBeGreaterThan(0);
  });

  it("reads the records in the property's order from its index, without sorting every record", async () => {
    await new PostgresSearch(store.db, options).metadataSorts.tick();
    const explain = async (sql: string) =>
      (await queryRows<{ "QUERY PLAN": string }>(store.db, `EXPLAIN ${sql}`, [])).map((r) => r["QUERY PLAN"]).join("\n");
    const index = metadataSortIndexName(ids.ds, "length");
    for (const order of ["asc", "desc"] as const) {
      const q = query({ scope: { entity: "metadata", name: "length" }, order }, [], null);
      const source = walkSource(new Builder(null), q, q.sort[0]!, true)!;
      const plan = await explain(`SELECT * FROM (${source.from} LIMIT 20) w`);
      expect(plan, order).toContain(index);
      if (order === "asc") expect(plan, order).not.toMatch(/\n\s*->\s+Sort\b/);
      // Descending: the keys one probe each from the largest down, each key's records by seq; never a sort of all of them.
      else expect(plan, order).toMatch(/Recursive Union[\s\S]*Nested Loop/);
      expect(plan, order).not.toContain("Incremental Sort");
    }
    // The null run (12 records here: it may sort them by seq after a bitmap scan of the index).
    const nulls = await explain(
      `SELECT r.seq FROM records r WHERE r.dataset_id = ${literal(ids.ds)} AND ${metadataSortKey("r", "length")} IS NULL ORDER BY r.seq LIMIT 20`,
    );
    expect(nulls).toContain(index);
  });

  it("builds the index of a property added after its records, and drops those of deleted properties and datasets", async () => {
    const port = new PostgresSearch(store.db, options);
    await port.metadataSorts.tick();
    expect(await port.metadataSorts.ready(ids.ds, "late")).toBe(false);
    await property(ids.ds, "late", "integer");
    await port.metadataSorts.tick();
    const fresh = new PostgresSearch(store.db, options);
    expect(await fresh.metadataSorts.ready(ids.ds, "late")).toBe(true);
    await compare(["late"], [fresh]);
    expect(fresh.sortedPaths.walk).toBeGreaterThan(100);

    await store.db.deleteFrom("metadata_properties").where("dataset_id", "=", ids.ds).where("name", "=", "quality").execute();
    await sql`DELETE FROM records WHERE dataset_id = ${ids.other}`.execute(store.db);
    await store.db.deleteFrom("datasets").where("id", "=", ids.other).execute();
    await port.metadataSorts.tick();
    expect(await valid()).toEqual(
      [metadataSortIndexName(ids.ds, "length"), metadataSortIndexName(ids.ds, "source"), metadataSortIndexName(ids.ds, "late")].sort(),
    );
    const after = new PostgresSearch(store.db, options);
    expect(await after.metadataSorts.ready(ids.ds, "quality")).toBe(false);
    // A sort by a deleted property's values (records keep them) takes the plain query again.
    const plain = new PostgresSearch(store.db, { ...options, sortedWalk: false });
    const q = query({ scope: { entity: "metadata", name: "quality" }, order: "desc" }, [pending], null, { userId: ids.u1 });
    expect((await after.search(q)).hits).toEqual((await plain.search(q)).hits);
    expect(after.sortedPaths.walk).toBe(0);
  }, 600_000);

  it("builds an invalid index left by a stopped build again", async () => {
    const port = new PostgresSearch(store.db, options);
    await port.metadataSorts.tick();
    const name = metadataSortIndexName(ids.ds, "length");
    await sql.raw(`UPDATE pg_index SET indisvalid = false WHERE indexrelid = '${name}'::regclass`).execute(store.db);
    const other = new PostgresSearch(store.db, options);
    expect(await other.metadataSorts.ready(ids.ds, "length")).toBe(false);
    await other.metadataSorts.tick();
    expect(await new PostgresSearch(store.db, options).metadataSorts.ready(ids.ds, "length")).toBe(true);
  });

  it("tries a failed build again only after a while, not at every tick", async () => {
    // A build that cannot take its lock within 200 ms fails (a real failure: the table locked by another session).
    const url = new URL(store.databaseUrl!);
    url.searchParams.set("options", "-c lock_timeout=200");
    const other = await openPostgresStore(url.toString(), { poolSize: 2 });
    try {
      const indexes = new PostgresMetadataSortIndexes(other.db, { retryMs: 1_500 });
      await property(ids.ds, "retried", "integer");
      await store.db.transaction().execute(async (trx) => {
        await sql`LOCK TABLE records IN SHARE UPDATE EXCLUSIVE MODE`.execute(trx);
        await expect(indexes.tick()).rejects.toThrow(/lock timeout/);
      });
      // Within retryMs: not tried again (the lock is free now).
      await indexes.tick();
      expect(await new PostgresMetadataSortIndexes(store.db).ready(ids.ds, "retried")).toBe(false);
      await new Promise((r) => setTimeout(r, 1_600));
      await indexes.tick();
      expect(await new PostgresMetadataSortIndexes(store.db).ready(ids.ds, "retried")).toBe(true);
    } finally {
      await other.close();
    }
  });
});
