import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { PostgresSearch } from "./postgres-search.js";
import { walkable } from "./postgres-sorted.js";
import { queryRows } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery, SearchSort } from "./search-port.js";
import { expectSameOrLowerTotal, insertRecords, seedSearchData, TEST_FILTERS, completeWhere } from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

const N = 2_400;

/**
 * The test records of `ids.ds` between other datasets' (seedSearchData's, with a label question), with updated times,
 * responses of two users, suggestions and completed records as the annotation page's filters and sorts meet them.
 */
async function seedSorted(store: Store): Promise<Awaited<ReturnType<typeof seedSearchData>>["ids"]> {
  const { ids } = await seedSearchData(store);
  // Words: `every` in all, `half` in every 2nd, `tenth` in every 10th, `rare` in 3; `summary` holds `half` in every 3rd.
  const shape = (prefix: string) => (i: number) => ({
    external_id: `${prefix}-${i}`,
    fields: JSON.stringify({
      text: `every ${i % 2 === 0 ? "half" : "odd"} ${i % 10 === 0 ? "tenth" : ""} ${i % 800 === 5 ? "rare" : ""} row`,
      summary: i % 3 === 0 ? "half summary" : "plain",
    }),
    metadata: JSON.stringify(i % 11 === 0 ? {} : { source: ["news", "wiki", "forum"][i % 3], length: i % 7 }),
  });
  await insertRecords(store, ids.other, 60, shape("o"));
  const added = await insertRecords(store, ids.ds, N, shape("d"));
  await insertRecords(store, ids.other, 60, shape("p"));
  // Updated times with ties (97 distinct), in another order than the records'.
  await sql`UPDATE records SET updated_at = '2025-01-01T00:00:' || lpad(((seq * 37) % 97)::text, 2, '0') || '.000'`.execute(store.db);
  // Responses of two users: submitted, draft, discarded, with label values (a list in some).
  const responses = added.flatMap((r, i) => {
    const out: { user: string; status: "draft" | "submitted" | "discarded"; value: unknown }[] = [];
    if (i % 5 === 0)
      out.push({
        user: ids.u1,
        status: i % 3 === 0 ? "draft" : "submitted",
        value: i % 4 === 0 ? ["pos", "neu"] : i % 2 ? "pos" : "neg",
      });
    if (i % 6 === 0) out.push({ user: ids.u2, status: i % 4 === 0 ? "discarded" : "submitted", value: "neu" });
    return out.map((o) => ({
      id: randomUUID(),
      record_id: r.id,
      user_id: o.user,
      status: o.status,
      values: JSON.stringify({ label: { value: o.value } }),
      inserted_at: "t",
      updated_at: "t",
    }));
  });
  await store.db.insertInto("responses").values(responses).execute();
  // Suggestions: none on every 9th record, a null score on every 13th, a list of scores on every 4th, 21 distinct scores (ties).
  const suggestions = added
    .map((r, i) => ({ r, i }))
    .filter(({ i }) => i % 9 !== 0)
    .map(({ r, i }) => ({
      id: randomUUID(),
      record_id: r.id,
      question_id: ids.label,
      value: JSON.stringify(i % 4 === 0 ? ["pos", "neg"] : ["pos", "neg", "neu"][i % 3]),
      score: i % 13 === 0 ? null : JSON.stringify(i % 4 === 0 ? [((i * 7) % 21) / 20, 0.05] : ((i * 7) % 21) / 20),
      agent: i % 2 ? "model-a" : "model-b",
      type: "model" as const,
      inserted_at: "t",
      updated_at: "t",
    }));
  await store.db.insertInto("suggestions").values(suggestions).execute();
  await completeWhere(store, added, (i) => i % 17 === 0);
  await sql`ANALYZE`.execute(store.db);
  return ids;
}

describe(`PostgreSQL sorted pages through the sorts' indexes (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    ids = await seedSorted(store);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const { pending, submitted, completed } = TEST_FILTERS;
  const suggested = (values: unknown[]): SearchFilter => ({
    type: "terms",
    scope: { entity: "suggestion", questionId: ids.label, property: "value" },
    values,
  });
  const score = (): SearchFilter => ({
    type: "range",
    scope: { entity: "suggestion", questionId: ids.label, property: "score" },
    ge: 0.8,
    le: null,
  });
  const news: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "source" }, values: ["news"] };
  const answered = (values: unknown[]): SearchFilter => ({
    type: "terms",
    scope: { entity: "response_value", questionName: "label" },
    values,
  });
  const sorts = (): SearchSort[] => [
    { scope: { entity: "record", property: "updated_at" }, order: "desc" },
    { scope: { entity: "record", property: "updated_at" }, order: "asc" },
    { scope: { entity: "record", property: "inserted_at" }, order: "desc" },
    { scope: { entity: "suggestion", questionId: ids.label, property: "score" }, order: "desc" },
    { scope: { entity: "suggestion", questionId: ids.label, property: "score" }, order: "asc" },
    { scope: { entity: "response_value", questionName: "label" }, order: "asc" },
    { scope: { entity: "response_value", questionName: "label" }, order: "desc" },
    // No metadata property here, so no index in its order: the plain query (postgres-metadata-sort.test.ts walks one).
    { scope: { entity: "metadata", name: "length" }, order: "desc" },
  ];
  const query = (
    sort: SearchSort,
    filters: SearchFilter[],
    text: { q: string; field: string | null } | null,
    more: Partial<SearchQuery> = {},
  ): SearchQuery => ({ datasetId: ids.ds, userId: null, text, vector: null, filters, sort: [sort], offset: 0, limit: 10, ...more });

  it("gives the plain query's records in its order, scores and totals, by the walk, the gathered matches and the plain fallback", async () => {
    const plain = new PostgresSearch(store.db, { vectorSearch: false, sortedWalk: false, rankAhead: false, textVocabulary: false });
    const walks = [
      new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false, textVocabulary: false }),
      // The walk's budget spent at once: the gathered matches (text) or the plain query; with too few gathered, the plain query.
      new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false, textVocabulary: false, sortedWalk: { walkRecords: 1 } }),
      new PostgresSearch(store.db, {
        vectorSearch: false,
        rankAhead: false,
        textVocabulary: false,
        sortedWalk: { walkRecords: 30, gatherRecords: 100 },
      }),
      // The top score's ties read in seq order over 40 records at most: too few for most pages (the sorted walk then).
      new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false, textVocabulary: false, sortedWalk: { tieRecords: 40 } }),
    ];
    const texts = [null, { q: "every", field: null }, { q: "half", field: null }, { q: "tenth", field: null }, { q: "rare", field: null }];
    const more = [
      { q: "nowhere", field: null },
      { q: "half row", field: null },
      { q: "half", field: "summary" },
      { q: "ev*", field: null },
    ];
    const filterSets: [SearchFilter[], string | null][] = [
      [[], null],
      [[pending], ids.u1],
      [[pending], null],
      [[pending, suggested(["pos"])], ids.u1],
      [[pending, score()], ids.u1],
      [[submitted, answered(["pos"])], ids.u1],
      [[answered(["neu"])], null],
      [[completed], null],
      [[pending, news, suggested(["neg"])], ids.u2],
    ];
    let queries = 0;
    let nonEmpty = 0;
    for (const sort of sorts())
      for (const [filters, userId] of filterSets)
        for (const text of [...texts, ...(filters.length < 2 ? more : [])])
          for (const page of [{}, { offset: 495 }, { offset: N - 5 }, { limit: 0 }]) {
            const q = query(sort, filters, text, { userId, ...page });
            const label = JSON.stringify({ sort, filters, text, userId, page });
            const expected = await plain.search(q);
            for (const port of walks) {
              const got = await port.search(q);
              expect(got.hits, label).toEqual(expected.hits);
              expect(got.total, label).toBe(expected.total);
            }
            queries++;
            if (expected.hits.length > 0) nonEmpty++;
          }
    expect(nonEmpty).toBeGreaterThan(queries / 5);
    // Each path answered: the walk, the gathered matches, the plain query after either.
    for (const port of walks) expect(port.sortedPaths.walk, JSON.stringify(port.sortedPaths)).toBeGreaterThan(queries / 10);
    expect(walks[1]!.sortedPaths.gathered).toBeGreaterThan(queries / 10);
    expect(walks[2]!.sortedPaths.plain).toBeGreaterThan(0);
    // The top score's ties in seq order (postgres-score-ties.ts) answered first pages sorted by score, and left the rest
    // to the walk; over 40 records they answered fewer (too few ties among them: the walk, the same answers).
    expect(walks[0]!.sortedPaths.ties).toBeGreaterThan(3);
    expect(walks[3]!.sortedPaths.ties).toBeLessThan(walks[0]!.sortedPaths.ties);
    expect(plain.sortedPaths).toEqual({ walk: 0, gathered: 0, ties: 0, plain: 0 });
  }, 600_000);

  it("reads the first page sorted by a suggestion score or a response value from the first key's ties in seq order", async () => {
    const plain = new PostgresSearch(store.db, { vectorSearch: false, sortedWalk: false, rankAhead: false, textVocabulary: false });
    const paths: string[] = [];
    for (const sort of sorts().slice(3, 7))
      for (const userId of [null, ids.u1]) {
        const port = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false, textVocabulary: false });
        const q = query(sort, [], null, { userId });
        const expected = await plain.search(q);
        expect(expected.hits).toHaveLength(10);
        expect(await port.search(q), JSON.stringify({ sort, userId })).toEqual(expected);
        paths.push(`${sort.scope.entity} ${sort.order} ${userId ? "me" : "all"}: ${port.sortedPaths.ties ? "ties" : "walk"}`);
      }
    // A first key held by fewer than 10 records (the seeded records' own scores) leaves the page to the walk.
    expect(paths.filter((p) => p.endsWith("ties")).length, paths.join("; ")).toBeGreaterThanOrEqual(4);
    expect(paths.filter((p) => p.startsWith("response_value") && p.endsWith("ties")).length, paths.join("; ")).toBeGreaterThanOrEqual(2);
  });

  it("bounds the total as the score order's search does, and keeps the records and their order", async () => {
    const plain = new PostgresSearch(store.db, { vectorSearch: false, sortedWalk: false, rankAhead: false, textVocabulary: false });
    const port = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false, textVocabulary: false });
    let lower = 0;
    for (const sort of sorts())
      for (const [filters, userId] of [
        [[pending], ids.u1],
        [[pending, suggested(["pos"])], ids.u1],
        [[news], null],
        [[], null],
      ] as [SearchFilter[], string | null][])
        for (const text of [null, { q: "every", field: null }, { q: "half", field: null }, { q: "tenth", field: null }])
          for (const page of [{}, { offset: 120 }]) {
            const q = query(sort, filters, text, { userId, totalBound: 100, filterBound: 50, ...page });
            const label = JSON.stringify({ sort, filters, text, userId, page });
            const got = await port.search(q);
            const expected = await plain.search(q);
            expectSameOrLowerTotal(got, expected, q, label);
            if (got.totalIsLowerBound) lower++;
            // The same total as the query in the score order (text) or in the records' order (the sorts with an index in their order).
            const unsorted = await port.search({ ...q, sort: [] });
            if (got.hits.length === q.limit && walkable(q))
              expect({ total: got.total, lower: got.totalIsLowerBound }, label).toEqual({
                total: Math.max(unsorted.total, q.offset + q.limit),
                lower: unsorted.totalIsLowerBound,
              });
          }
    expect(lower).toBeGreaterThan(10);
  }, 600_000);

  it("counts the records of no filter and of record statuses as the records are (the dataset's counters)", async () => {
    const port = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false, textVocabulary: false });
    const { statusPending } = TEST_FILTERS;
    for (const [filters, status] of [
      [[], null],
      [[completed], "completed"],
      [[statusPending], "pending"],
      [[statusPending, completed], "none"],
    ] as [SearchFilter[], string | null][])
      for (const sort of [[], sorts()[0]!, sorts()[5]!])
        for (const datasetId of [ids.ds, ids.other]) {
          const q = { ...query(sorts()[0]!, filters, null), sort: Array.isArray(sort) ? sort : [sort], datasetId };
          const counted = await queryRows<{ n: number | string }>(
            store.db,
            "SELECT count(*) AS n FROM records WHERE dataset_id = $1 AND ($2::text IS NULL OR status = $2)",
            [datasetId, status],
          );
          expect((await port.search(q)).total, JSON.stringify({ filters, sort, datasetId })).toBe(Number(counted[0]!.n));
        }
  });

  it("reads the sorts from migration 0036's indexes, without sorting every record", async () => {
    const explain = async (text: string, params: unknown[]) =>
      (await queryRows<{ "QUERY PLAN": string }>(store.db, `EXPLAIN ${text}`, params as string[])).map((r) => r["QUERY PLAN"]).join("\n");
    const updated = await explain("SELECT r.seq FROM records r WHERE r.dataset_id = $1 ORDER BY r.updated_at DESC, r.seq ASC LIMIT 20", [
      ids.ds,
    ]);
    expect(updated).toContain("records_dataset_updated_idx");
    expect(updated).not.toMatch(/\n\s*->\s+Sort\b/);
    const scored = await explain(
      `SELECT r.seq FROM suggestions g JOIN records r ON r.id = g.record_id WHERE g.question_id = $1 AND tessera_json_top(g.score) IS NOT NULL
        AND r.dataset_id = $2 ORDER BY tessera_json_top(g.score) DESC, r.seq ASC LIMIT 20`,
      [ids.label, ids.ds],
    );
    expect(scored).toContain("suggestions_question_score_top_idx");
    expect(scored).not.toMatch(/\n\s*->\s+Sort\b/);
  });
});
