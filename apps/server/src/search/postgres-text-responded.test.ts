import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { PostgresText } from "./postgres-text.js";
import { RespondedBuckets } from "./postgres-text-responded.js";
import type { SearchFilter } from "./search-port.js";
import { expectFruitTextsAsPlain, openFruitStore, textQuery, TEST_FILTERS, answerWhere } from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (pgone.sh), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

const genre: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] };
const adminQuery = (datasetId: string, q: string, field: string | null, filters: SearchFilter[], page: Parameters<typeof textQuery>[3]) =>
  textQuery({ datasetId, userId: null, filters }, q, field, page);
/** The plain path: no search from the records' buckets (statusPath false). */
const plainPath = (store: Store) =>
  new PostgresText(
    store.db,
    undefined,
    null,
    7,
    true,
    {},
    async () => true,
    async () => true,
    false,
  );

/** Every fruit text with each filter set gives the plain path's answer from the answered records' buckets; most have hits. */
async function expectBucketsAsPlain(store: Store, datasetId: string, filterSets: SearchFilter[][]): Promise<void> {
  const fast = new PostgresText(store.db, undefined, null, 7);
  const plain = plainPath(store);
  const { cases, withHits } = await expectFruitTextsAsPlain(
    plain,
    fast,
    (q, field, filters, page) => adminQuery(datasetId, q, field, filters, page),
    filterSets,
  );
  // Every case takes the buckets' path, the plain one never.
  expect(fast.statusSearches).toBe(cases);
  expect(plain.statusSearches).toBe(0);
  expect(withHits).toBeGreaterThan(40);
}

describe(`PostgreSQL admin text search from the records anyone answered (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof openFruitStore>>["data"];
  let records: { id: string; seq: number }[];
  beforeAll(async () => {
    ({ store, data, records } = await openFruitStore(() => (onPostgres ? openTestPostgresStore() : openPgliteStore()), "a"));
    // Two users: submitted at the head (some records by both), drafts and discarded ones among them, and a few further on.
    await answerWhere(store, records, (i) => i < 600 && i % 4 !== 3, data.ids.u1, "submitted");
    await answerWhere(store, records, (i) => (i < 600 && i % 4 === 3) || i % 151 === 5, data.ids.u2, "submitted");
    await answerWhere(store, records, (i) => i >= 600 && i < 700, data.ids.u1, "draft");
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const responses = (values: string[]): SearchFilter => ({ type: "terms", scope: { entity: "response_status" }, values });
  const { completed } = TEST_FILTERS;
  const query = (q: string, field: string | null, filters: SearchFilter[], offset: number, limit: number, totalBound: number | null) =>
    adminQuery(data.ids.ds, q, field, filters, { offset, limit, totalBound });
  const plainText = () => plainPath(store);

  it("gives the plain path's pages and totals: words, phrase, prefix, a field, no match, other filters, offsets and bounds", async () => {
    await expectBucketsAsPlain(store, data.ids.ds, [
      [responses(["submitted"])],
      [responses(["submitted", "draft"])],
      [responses(["draft"])],
      [responses(["discarded"])],
      [responses(["submitted"]), genre],
    ]);
  }, 300_000);

  it("reads the span again when responses change: a record answered far on, a deleted record, another dataset", async () => {
    const fast = new PostgresText(store.db);
    const plain = plainText();
    const q = query("kiwi", null, [responses(["discarded"])], 0, 1000, null);
    expect(await fast.search(q)).toEqual({ hits: [], total: 0 });
    // Discarded far from the head: found at once (the answer version moved).
    const far = records.filter((_, i) => i % 2 === 0 && i > 1900);
    await store.db
      .insertInto("responses")
      .values(
        far.map((r) => ({
          id: randomUUID(),
          record_id: r.id,
          user_id: data.ids.u1,
          status: "discarded",
          values: "{}",
          inserted_at: "t",
          updated_at: "t",
        })),
      )
      .execute();
    const found = await fast.search(q);
    expect(found).toEqual(await plain.search(q));
    expect(found.total).toBe(far.length);
    // A deleted record leaves the answer.
    await store.db.deleteFrom("records").where("id", "=", far[0]!.id).execute();
    const after = await fast.search(q);
    expect(after).toEqual(await plain.search(q));
    expect(after.total).toBe(far.length - 1);
    expect(after.hits.map((h) => h.recordId)).not.toContain(far[0]!.id);
    // Another dataset: none answered.
    expect(await fast.search({ ...q, datasetId: data.ids.other, filters: [responses(["submitted"])] })).toEqual({ hits: [], total: 0 });
  });

  it("starts from the answered records only without a caller, without pending, and when they span few buckets", async () => {
    const buckets = new RespondedBuckets(store.db);
    const q = query("kiwi", null, [responses(["submitted"])], 0, 10, null);
    const seqs = records.filter((_, i) => i < 600 || i % 151 === 5).map((r) => r.seq);
    const lo = Math.floor(Math.min(...seqs) / 1024);
    const hi = Math.floor(Math.max(...seqs) / 1024);
    expect(await buckets.buckets(q)).toEqual(Array.from({ length: hi - lo + 1 }, (_, i) => lo + i));
    expect(await buckets.buckets(q, hi - lo)).toBeNull();
    // More responses than read at most: the other paths (a record answered by both users counts twice).
    const answered = (
      await store.db
        .selectFrom("responses as s")
        .innerJoin("records as r", "r.id", "s.record_id")
        .where("r.dataset_id", "=", data.ids.ds)
        .where("s.status", "=", "submitted")
        .select((e) => e.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n;
    expect(Number(answered)).toBeGreaterThan(seqs.length);
    expect(await buckets.span(data.ids.ds, ["submitted"], 64, Number(answered) - 1)).toBeNull();
    expect(await buckets.span(data.ids.ds, ["submitted"], 64, Number(answered))).toEqual(await buckets.buckets(q));
    expect(await buckets.buckets({ ...q, userId: data.ids.u1 })).toBeNull();
    expect(await buckets.buckets({ ...q, filters: [responses(["submitted", "pending"])] })).toBeNull();
    expect(await buckets.buckets({ ...q, filters: [genre] })).toBeNull();
    expect(await buckets.buckets({ ...q, datasetId: data.ids.other })).toEqual([]);
    // A record status filter's own records come first (postgres-text-status.ts), ahead of the responses'.
    const text = new PostgresText(store.db);
    await text.search({ ...q, filters: [responses(["pending"])] });
    expect(text.statusSearches).toBe(0);
    const both = { ...q, filters: [completed, responses(["submitted"])] };
    expect(await text.search(both)).toEqual(await plainText().search(both));
  });
});

describe(`PostgreSQL admin text search with a response value filter (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof openFruitStore>>["data"];
  let records: { id: string; seq: number }[];
  // Anyone's answers at the head (a label, several labels, a number), in every status, and a few further on.
  const value = (i: number): unknown => (i % 5 === 0 ? ["neg", "pos"] : i % 5 === 1 ? 3 : i % 5 === 2 ? "neg" : "pos");
  beforeAll(async () => {
    ({ store, data, records } = await openFruitStore(() => (onPostgres ? openTestPostgresStore() : openPgliteStore()), "v"));
    const statuses = ["submitted", "draft", "discarded"] as const;
    await store.db
      .insertInto("responses")
      .values(
        records.flatMap((r, i) =>
          (i < 500 && i % 3 !== 2) || i % 301 === 7
            ? [
                {
                  id: randomUUID(),
                  record_id: r.id,
                  user_id: i % 2 === 0 ? data.ids.u1 : data.ids.u2,
                  status: statuses[i % 3]!,
                  values: JSON.stringify({ label: { value: value(i) } }),
                  inserted_at: "t",
                  updated_at: "t",
                },
              ]
            : [],
        ),
      )
      .execute();
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const label = (values: unknown[]): SearchFilter => ({
    type: "terms",
    scope: { entity: "response_value", questionName: "label" },
    values,
  });
  const between: SearchFilter = { type: "range", scope: { entity: "response_value", questionName: "label" }, ge: 2, le: 4 };
  const query = (q: string, field: string | null, filters: SearchFilter[], offset: number, limit: number, totalBound: number | null) =>
    adminQuery(data.ids.ds, q, field, filters, { offset, limit, totalBound });
  const plainText = () => plainPath(store);

  it("gives the plain path's pages and totals from the answered records' buckets: a value, values, a range, with other filters", async () => {
    await expectBucketsAsPlain(store, data.ids.ds, [
      [label(["pos"])],
      [label(["neg", "pos"])],
      [label(["none"])],
      [label([])],
      [between],
      [label(["neg"]), genre],
    ]);
  }, 300_000);

  it("spans the records with any response, not a caller's; a moved answer, a deleted record and another dataset", async () => {
    const buckets = new RespondedBuckets(store.db);
    const q = query("kiwi", null, [label(["pos"])], 0, 10, null);
    const seqs = records.filter((_, i) => (i < 500 && i % 3 !== 2) || i % 301 === 7).map((r) => r.seq);
    const lo = Math.floor(Math.min(...seqs) / 1024);
    const hi = Math.floor(Math.max(...seqs) / 1024);
    expect(await buckets.buckets(q)).toEqual(Array.from({ length: hi - lo + 1 }, (_, i) => lo + i));
    expect(await buckets.buckets({ ...q, filters: [between] })).toEqual(await buckets.buckets(q));
    // A caller's own answers (the /me search): the caller's paths, not these buckets.
    expect(await buckets.buckets({ ...q, userId: data.ids.u1 })).toBeNull();
    expect(await buckets.buckets({ ...q, datasetId: data.ids.other })).toEqual([]);
    const fast = new PostgresText(store.db);
    const plain = plainText();
    // A record answered "pos" far on after the span was read: found (the answer version moved).
    const far = records[1995]!; // "lime0", unanswered
    await store.db
      .insertInto("responses")
      .values({
        id: randomUUID(),
        record_id: far.id,
        user_id: data.ids.u1,
        status: "draft",
        values: JSON.stringify({ label: { value: "pos" } }),
        inserted_at: "t",
        updated_at: "t",
      })
      .execute();
    const lime = query("lime0", null, [label(["pos"])], 0, 1000, null);
    const found = await fast.search(lime);
    expect(found).toEqual(await plain.search(lime));
    expect(found.hits.map((h) => h.recordId)).toContain(far.id);
    await store.db.deleteFrom("records").where("id", "=", far.id).execute();
    const after = await fast.search(lime);
    expect(after).toEqual(await plain.search(lime));
    expect(after.total).toBe(found.total - 1);
    expect(fast.statusSearches).toBe(2);
  });
});
