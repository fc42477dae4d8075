import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { queryRows, textCount } from "./postgres-sql.js";
import { commonTerms, filteredTotal } from "./postgres-text-filtered.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { insertRecords, pageQuery, seedSearchData } from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

describe(`PostgreSQL text search: bounded totals with a metadata filter (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    ({ ids } = await seedSearchData(store));
    const shape = (prefix: string) => (i: number) => ({
      external_id: `${prefix}-${i}`,
      fields: JSON.stringify({ text: `common ${i % 4 === 0 ? "quarter" : "other"}`, summary: i % 3 === 0 ? "third" : "plain" }),
      metadata: JSON.stringify({ source: ["news", "wiki", "forum"][i % 3], quality: (i % 10) / 10, tags: i % 2 ? ["a", "b"] : ["c"] }),
    });
    await insertRecords(store, ids.other, 30, shape("o")); // another dataset's records, before and after, never count
    await insertRecords(store, ids.ds, 240, shape("d"));
    await insertRecords(store, ids.other, 30, shape("p"));
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  const source = (v: string): SearchFilter => ({ type: "terms", scope: { entity: "metadata", name: "source" }, values: [v] });
  const quality: SearchFilter = { type: "range", scope: { entity: "metadata", name: "quality" }, ge: 0.25, le: 0.75 };
  const tags: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "tags" }, values: ["a"] };
  const query = (q: string, filters: SearchFilter[]): SearchQuery => pageQuery(ids.ds, filters, { text: q });
  const exact = async (q: SearchQuery) => {
    const { sql, params } = textCount(q, null, true);
    return Number((await queryRows<{ n: number | string }>(store.db, sql, params))[0]!.n);
  };
  const ahead = { version: 0, records: 240, repeated: 0, seqs: [] };

  it("counts as the exact count does, up to the bound, by the walk and by the GIN index", async () => {
    const paths = new Set<string>();
    let lower = 0;
    for (const [q, filters] of [
      ["common", [source("news")]],
      ["common", [source("wiki"), quality]],
      ["quarter", [tags, quality]],
      ["third", [source("news")]],
      ["third", [source("wiki")]],
      ["nothing", [quality]],
    ] as const) {
      const n = await exact(query(q, [...filters]));
      for (const bound of [3, 25, 1000])
        for (const options of [{}, { walkMinShare: 0 }, { walkMinShare: 0, walkRecords: 10 }, { walkMinShare: 2 }])
          for (const known of [ahead, null]) {
            const got = await filteredTotal(store.db, query(q, [...filters]), known, bound, options);
            const expected = n > bound ? { total: bound, totalIsLowerBound: true } : { total: n };
            expect(
              { total: got.total, ...(got.totalIsLowerBound ? { totalIsLowerBound: true } : {}) },
              `${q} ${bound} ${JSON.stringify(options)}`,
            ).toEqual(expected);
            paths.add(got.path);
            if (got.totalIsLowerBound) lower++;
          }
    }
    expect([...paths].sort()).toEqual(["index", "walk"]);
    expect(lower).toBeGreaterThan(10);
    // The walk decides when the bound is passed within its records, else the GIN path counts.
    expect((await filteredTotal(store.db, query("common", [source("news")]), ahead, 3, { walkMinShare: 0, walkRecords: 20 })).path).toBe(
      "walk",
    );
    expect((await filteredTotal(store.db, query("common", [source("news")]), ahead, 25, { walkMinShare: 0, walkRecords: 20 })).path).toBe(
      "index",
    );
    expect((await filteredTotal(store.db, query("common", [source("news")]), null, 3, { walkMinShare: 0 })).path).toBe("index");
  });

  it("counts without a common metadata term's GIN entry as with it, and tells common terms from the planner's statistics", async () => {
    await sql`analyze record_search`.execute(store.db);
    expect(await commonTerms(store.db, [source("news")])).toBe(true);
    expect(await commonTerms(store.db, [source("news"), tags])).toBe(true);
    expect(await commonTerms(store.db, [source("nowhere")]), "a value no record has").toBe(false);
    expect(await commonTerms(store.db, [source("news"), source("nowhere")])).toBe(false);
    expect(await commonTerms(store.db, [quality]), "no terms filter").toBe(false);
    for (const [q, filters] of [
      ["common", [source("news"), quality]],
      ["quarter", [tags, quality]],
      ["third", [source("nowhere")]],
    ] as const) {
      const n = await exact(query(q, [...filters]));
      for (const bound of [3, 1000]) {
        const count = async (termsIndex: boolean) => {
          const { sql: text, params } = textCount(query(q, [...filters]), bound, false, termsIndex);
          return Number((await queryRows<{ n: number | string }>(store.db, text, params))[0]!.n);
        };
        expect([await count(true), await count(false)], `${q} ${bound}`).toEqual([Math.min(n, bound + 1), Math.min(n, bound + 1)]);
      }
    }
  });
});
