import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { Builder, queryRows, SERIAL_PLAN, textCount } from "./postgres-sql.js";
import { commonTerms, filteredTotal, READ_PER_BOUND, readCount } from "./postgres-text-filtered.js";
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

  const source = (...values: string[]): SearchFilter => ({ type: "terms", scope: { entity: "metadata", name: "source" }, values });
  const quality: SearchFilter = { type: "range", scope: { entity: "metadata", name: "quality" }, ge: 0.25, le: 0.75 };
  const tags: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "tags" }, values: ["a"] };
  const query = (q: string, filters: SearchFilter[]): SearchQuery => pageQuery(ids.ds, filters, { text: q });
  const exact = async (q: SearchQuery) => {
    const { sql, params } = textCount(q, null, true);
    return Number((await queryRows<{ n: number | string }>(store.db, sql, params))[0]!.n);
  };
  const ahead = { version: 0, records: 240, repeated: 0, listed: 0, seqs: [], counts: [] };

  it("counts as the exact count does, up to the bound, by the walk and by the GIN index, when the count may read every record", async () => {
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
            const got = await filteredTotal(store.db, query(q, [...filters]), known, bound, { ...options, readPerBound: 1e6 });
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
    const all = { walkMinShare: 0, readPerBound: 1e6 };
    expect((await filteredTotal(store.db, query("common", [source("news")]), ahead, 3, { ...all, walkRecords: 20 })).path).toBe("walk");
    expect((await filteredTotal(store.db, query("common", [source("news")]), ahead, 25, { ...all, walkRecords: 20 })).path).toBe("index");
    expect((await filteredTotal(store.db, query("common", [source("news")]), null, 3, all)).path).toBe("index");
  });

  it("reads at most READ_PER_BOUND x (bound + 1) of the word's records: the records passing among them, as a lower bound", async () => {
    expect(READ_PER_BOUND).toBe(2);
    // The dataset's records in seq order and whether each passes the word and the filters (the reference).
    const passes = async (q: string, filters: SearchFilter[]) => {
      const b = new Builder(null);
      const rows = await queryRows<{ seq: number | string; hit: boolean | number }>(
        store.db,
        `SELECT r.seq AS seq, (EXISTS (SELECT 1 FROM records_fts f WHERE f.record_seq = r.seq AND f.tsv @@ plainto_tsquery('tessera_search', ${b.p(q)}))
          AND ${filters.map((f) => b.filter(f)).join(" AND ")}) AS hit FROM records r WHERE r.dataset_id = ${b.p(ids.ds)} ORDER BY r.seq`,
        b.params,
      );
      return rows.map((r) => r.hit === true || r.hit === 1);
    };
    let capped = 0;
    for (const [q, filters] of [
      ["common", [source("news")]],
      ["common", [source("wiki"), quality]],
      ["third", [source("news")]],
      ["quarter", [quality]],
    ] as const) {
      const hits = await passes(q, [...filters]);
      const n = hits.filter(Boolean).length;
      expect(n).toBe(await exact(query(q, [...filters])));
      const share = (await exact(query(q, []))) / hits.length;
      for (const bound of [2, 5, 1000]) {
        // The walk: the records holding ~2 x (bound + 1) of the word's, in seq order (its share of them).
        const walk = await filteredTotal(store.db, query(q, [...filters]), { ...ahead, records: Math.round(share * 240) }, bound, {
          walkMinShare: 0,
        });
        const read = Math.min(240, Math.ceil((2 * (bound + 1)) / (Math.round(share * 240) / 240)));
        const passing = hits.slice(0, read).filter(Boolean).length;
        expect(walk.path).toBe("walk");
        if (passing > bound) expect(walk, `${q} ${bound}`).toEqual({ total: bound, totalIsLowerBound: true, path: "walk" });
        else if (read >= 240) expect(walk, `${q} ${bound}`).toEqual({ total: n, path: "walk" });
        else {
          expect(walk, `${q} ${bound}`).toEqual({ total: passing, totalIsLowerBound: true, path: "walk" });
          capped++;
        }
        // The GIN path: a lower bound never above the exact count, exact when every match was read.
        const gin = await filteredTotal(store.db, query(q, [...filters]), null, bound);
        expect(gin.path).toBe("index");
        const matches = await exact(query(q, []));
        if (gin.totalIsLowerBound) expect(gin.total, `${q} ${bound}`).toBeLessThanOrEqual(Math.min(n, bound));
        else expect(gin.total).toBe(n);
        if (matches <= 2 * (bound + 1))
          expect(gin, `${q} ${bound} reads every match`).toEqual(
            n > bound ? { total: bound, totalIsLowerBound: true, path: "index" } : { total: n, path: "index" },
          );
        if (matches > 2 * (bound + 1) && n <= bound && gin.totalIsLowerBound) capped++;
      }
    }
    expect(capped).toBeGreaterThan(2);
    // readCount: `read` the first records matching (at most the cap), `n` those of them passing the filters.
    for (const reads of [1, 7, 1000]) {
      const q = query("common", [source("news")]);
      const { sql: text, params } = readCount(q, reads, 1000);
      const row = (await queryRows<{ read: number | string; n: number | string }>(store.db, text, params))[0]!;
      const matches = await exact(query("common", []));
      expect(Number(row.read)).toBe(Math.min(reads + 1, matches));
      const n = await exact(q);
      // Among `read` matches at most the passing ones, and at least those left after every failing one.
      expect(Number(row.n)).toBeLessThanOrEqual(Math.min(Number(row.read), n));
      expect(Number(row.n)).toBeGreaterThanOrEqual(Math.max(0, Number(row.read) - (matches - n)));
    }
    // Exactly as many matches as the count reads (240 of "common"): every one read, so the total is exact.
    const high: SearchFilter = { type: "range", scope: { entity: "metadata", name: "quality" }, ge: 0.75, le: null };
    expect(await filteredTotal(store.db, query("common", [high]), null, 119)).toEqual({
      total: await exact(query("common", [high])),
      path: "index",
    });
    // No match; another dataset's records (30 before and 30 after this one's): counted for that dataset only.
    expect(await filteredTotal(store.db, query("nothing", [source("news")]), null, 3)).toEqual({ total: 0, path: "index" });
    const other = { ...query("third", [source("news")]), datasetId: ids.other };
    expect(await filteredTotal(store.db, other, null, 1000)).toEqual({ total: await exact(other), path: "index" });
  });

  it("with the index of words and terms (0031): reads only the records holding both, exact up to the bound, stops past it", async () => {
    const count = async (q: SearchQuery, reads: number, bound: number, termsIndex: boolean) => {
      const { sql: text, params } = readCount(q, reads, bound, termsIndex);
      const row = (await queryRows<{ read: number | string; n: number | string }>(store.db, text, params))[0]!;
      return { read: Number(row.read), n: Number(row.n) };
    };
    const news = query("common", [source("news"), quality]);
    const holding = await exact(query("common", [source("news")]));
    expect(holding).toBe(80);
    const n = await exact(news);
    expect(n).toBeGreaterThan(10);
    // Every record of the word and the term read (80 of the word's 240), the passing ones counted.
    expect(await count(news, 1000, 1000, true)).toEqual({ read: holding, n });
    expect(await count(news, 1000, 1000, false)).toEqual({ read: 240, n });
    // At most `reads` + 1 read; the scan stops at the record where `bound` + 2 passed (n is then bound + 1).
    expect((await count(news, 10, 1000, true)).read).toBe(11);
    const stopped = await count(news, 1000, 3, true);
    expect(stopped.n).toBe(4);
    expect(stopped.read).toBeLessThan(holding);
    for (const [q, filters] of [
      ["common", [source("news")]],
      ["common", [source("wiki"), quality]],
      ["common", [source("news", "wiki"), quality]],
      ["quarter", [tags, quality]],
      ["third", [source("nowhere")]],
      ["nothing", [source("news")]],
      ["third", [quality]],
    ] as const) {
      const n = await exact(query(q, [...filters]));
      for (const bound of [3, 25, 1000]) {
        const expected = n > bound ? { total: bound, totalIsLowerBound: true } : { total: n };
        const got = await filteredTotal(store.db, query(q, [...filters]), null, bound, { wordsTerms: true, readPerBound: 1e6 });
        expect({ total: got.total, ...(got.totalIsLowerBound ? { totalIsLowerBound: true } : {}) }, `${q} ${bound}`).toEqual(expected);
        // Reading at most 2 x (bound + 1) of the records holding the word and the terms: exact when those are all, else at most the exact count.
        const capped = await filteredTotal(store.db, query(q, [...filters]), null, bound, { wordsTerms: true });
        const candidates = await exact(
          query(
            q,
            filters.filter((f) => f.type === "terms"),
          ),
        );
        if (candidates <= READ_PER_BOUND * (bound + 1) || capped.total > bound || !capped.totalIsLowerBound)
          expect({ total: capped.total, ...(capped.totalIsLowerBound ? { totalIsLowerBound: true } : {}) }, `${q} ${bound}`).toEqual(
            expected,
          );
        else expect(capped.total, `${q} ${bound}`).toBeLessThanOrEqual(Math.min(n, bound));
      }
    }
    // 80 records hold "common" and news, 8 of each 10 qualities fail: a bound of 10 with 11 reads gives a lower bound.
    const few = query("common", [source("news"), { type: "range", scope: { entity: "metadata", name: "quality" }, ge: 0.85, le: null }]);
    const fewExact = await exact(few);
    expect(fewExact).toBeLessThan(20);
    const fewTotal = await filteredTotal(store.db, few, null, 10, { wordsTerms: true, readPerBound: 1 });
    expect(fewTotal.totalIsLowerBound).toBe(true);
    expect(fewTotal.total).toBeLessThanOrEqual(Math.min(fewExact, 10));
    // Another dataset's records (30 before and 30 after this one's): counted for that dataset only.
    const other = { ...query("common", [source("news"), quality]), datasetId: ids.other };
    expect(await filteredTotal(store.db, other, null, 1000, { wordsTerms: true })).toEqual({ total: await exact(other), path: "index" });
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
  it("counts the word's records through the words-and-terms index in a serial plan, whatever parallel plans cost", async () => {
    const q = query("common", [source("news"), quality]);
    const { sql: text, params } = readCount(q, 1000, 1000, true);
    const plan = async (statement: string) =>
      store.db.transaction().execute(async (trx) => {
        // Parallel plans as cheap as can be: PostgreSQL plans workers for any scan that allows them.
        await sql
          .raw(
            `SELECT set_config('parallel_setup_cost', '0', true), set_config('parallel_tuple_cost', '0', true),
            set_config('min_parallel_table_scan_size', '0', true), set_config('min_parallel_index_scan_size', '0', true),
            set_config('max_parallel_workers_per_gather', '2', true), set_config('enable_seqscan', 'off', true)`,
          )
          .execute(trx);
        const rows = await queryRows<Record<string, string>>(trx, `EXPLAIN ${statement}`, params);
        return rows.map((r) => Object.values(r)[0]).join("\n");
      });
    const parallel = await plan(text.replace(/, set_config\('max_parallel_workers_per_gather', '0', true\) AS serial/, ""));
    expect(text).toContain(SERIAL_PLAN);
    if (onPostgres) expect(parallel).toContain("Gather");
    expect(await plan(text)).not.toContain("Gather");
    // The same count either way.
    const row = (await queryRows<{ read: number | string; n: number | string }>(store.db, text, params))[0]!;
    expect({ read: Number(row.read), n: Number(row.n) }).toEqual({
      read: await exact(query("common", [source("news")])),
      n: await exact(q),
    });
  });
});
