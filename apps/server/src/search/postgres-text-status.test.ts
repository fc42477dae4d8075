import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { PostgresText } from "./postgres-text.js";
import { statusBuckets } from "./postgres-text-status.js";
import type { SearchFilter } from "./search-port.js";
import { completeRecords, expectFruitTextsAsPlain, openFruitStore, textQuery, TEST_FILTERS, answerWhere } from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (pgone.sh), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

describe(`PostgreSQL text search from a record status's records (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof openFruitStore>>["data"];
  let records: { id: string; seq: number }[];
  beforeAll(async () => {
    ({ store, data, records } = await openFruitStore(() => (onPostgres ? openTestPostgresStore() : openPgliteStore()), "s"));
    // A completed head and a few completed records further on.
    const completed = records.filter((_, i) => i < 700 || i % 97 === 3);
    for (let i = 0; i < completed.length; i += 500) await completeRecords(store, completed.slice(i, i + 500));
    // Suggestions of the label question: one value, or several (multi-label).
    await store.db
      .insertInto("suggestions")
      .values(
        records
          .filter((_, i) => i % 4 !== 3)
          .slice(0, 1200)
          .map((r, i) => ({
            id: randomUUID(),
            record_id: r.id,
            question_id: data.ids.label,
            value: JSON.stringify(i % 3 === 0 ? ["neg", "pos"] : i % 3 === 1 ? "pos" : "neg"),
            score: JSON.stringify(i % 3 === 0 ? [0.2, 0.7] : 0.5),
            agent: "m",
            type: "model" as const,
            inserted_at: "t",
            updated_at: "t",
          })),
      )
      .execute();
    await answerWhere(store, records, (i) => i % 11 === 0 && i < 900, data.ids.u1, "submitted");
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const status = (values: string[]): SearchFilter => ({ type: "terms", scope: { entity: "record", property: "status" }, values });
  const suggestion = (values: unknown[]): SearchFilter => ({
    type: "terms",
    scope: { entity: "suggestion", questionId: data.ids.label, property: "value" },
    values,
  });
  const genre: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] };
  const { pending } = TEST_FILTERS;
  const query = (q: string, field: string | null, filters: SearchFilter[], offset: number, limit: number, totalBound: number | null) =>
    textQuery({ datasetId: data.ids.ds, userId: data.ids.u1, filters }, q, field, { offset, limit, totalBound });

  it("gives the plain path's pages and totals: words, phrase, prefix, a field, with other filters, offsets and bounds", async () => {
    for (const window of [7, 1000])
      for (const buckets of [true, false]) {
        const fast = new PostgresText(store.db, undefined, null, window, true, {}, async () => buckets);
        const plain = new PostgresText(
          store.db,
          undefined,
          null,
          window,
          true,
          {},
          async () => true,
          async () => true,
          false,
        );
        const { withHits } = await expectFruitTextsAsPlain(
          plain,
          fast,
          (q, field, filters, page) => query(q, field, filters, page.offset, page.limit, page.totalBound),
          [
            [status(["completed"])],
            [status(["completed"]), genre],
            [status(["completed"]), suggestion(["pos"])],
            [status(["completed"]), pending],
          ],
          `buckets: ${buckets}`,
        );
        // The cases above take the new path (without the bucket index, the other paths), the plain one never; most have hits.
        expect(fast.statusSearches).toBe(buckets ? 7 * 4 * 4 : 0);
        expect(plain.statusSearches).toBe(0);
        expect(withHits).toBeGreaterThan(40);
      }
  }, 300_000);

  it("answers a suggestion value of a multi-label suggestion, exact totals, the bound, and no record of another dataset", async () => {
    const fast = new PostgresText(store.db);
    const plain = new PostgresText(
      store.db,
      undefined,
      null,
      undefined,
      true,
      {},
      async () => true,
      async () => true,
      false,
    );
    const neg = query("kiwi", null, [status(["completed"]), suggestion(["neg"])], 0, 1000, null);
    const got = await fast.search(neg);
    expect(got).toEqual(await plain.search(neg));
    expect(got.total).toBeGreaterThan(20);
    // Bounded: "N+" beyond the bound, as the plain path.
    const bounded = await fast.search({ ...neg, limit: 10, totalBound: 20 });
    expect(bounded).toMatchObject({ total: 20, totalIsLowerBound: true });
    expect(bounded.hits).toEqual(got.hits.slice(0, 10));
    // Another dataset: its completed records only (the seed's other dataset has none completed).
    expect(await fast.search({ ...neg, datasetId: data.ids.other, filters: [status(["completed"])] })).toEqual({ hits: [], total: 0 });
  });

  it("starts from the status's records only when they span few buckets and the filter has no pending", async () => {
    const q = query("kiwi", null, [status(["completed"])], 0, 10, null);
    const seqs = records.filter((_, i) => i < 700 || i % 97 === 3).map((r) => r.seq);
    const lo = Math.floor(Math.min(...seqs) / 1024);
    const hi = Math.floor(Math.max(...seqs) / 1024);
    expect(await statusBuckets(store.db, q)).toEqual(Array.from({ length: hi - lo + 1 }, (_, i) => lo + i));
    expect(await statusBuckets(store.db, q, hi - lo)).toBeNull();
    expect(await statusBuckets(store.db, { ...q, filters: [status(["completed", "pending"])] })).toBeNull();
    expect(await statusBuckets(store.db, { ...q, filters: [genre] })).toBeNull();
    expect(await statusBuckets(store.db, { ...q, datasetId: data.ids.other })).toEqual([]);
    const text = new PostgresText(store.db);
    await text.search({ ...q, filters: [status(["pending"])] });
    expect(text.statusSearches).toBe(0);
  });
});
