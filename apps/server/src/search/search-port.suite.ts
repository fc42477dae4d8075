import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/database.js";
import { indexRecordTexts } from "../records/ingest.js";
import { encodeVector } from "../records/read.js";
import type { SearchFilter, SearchPort, SearchQuery, SearchResult, SearchSort } from "./search-port.js";
import { HOSTILE_SEARCH_TEXTS } from "../testing/hostile-inputs.js";

/**
 * The search port's contract, run against every adapter (sqlite-search.test.ts on the embedded
 * store, postgres-search.test.ts on PGlite with pgvector): the same seeded data, the same answers.
 */
export interface SearchSuiteTarget {
  store: Store;
  port: SearchPort;
}

const ts = (i: number) => `2024-01-0${i}T00:00:00`;

/** Adds a metadata property of a dataset (settings of its type, visible to annotators) and returns its row. */
export async function insertMetadataProperty(store: Store, datasetId: string, name: string, type: "integer" | "float" | "terms") {
  const row = {
    id: randomUUID(),
    dataset_id: datasetId,
    name,
    title: name,
    settings: JSON.stringify(type === "terms" ? { type, values: null } : { type, min: null, max: null }),
    allowed_roles: JSON.stringify(["admin", "annotator"]),
    inserted_at: "t",
    updated_at: "t",
  };
  await store.db.insertInto("metadata_properties").values(row).execute();
  return row;
}

/**
 * Test filters the PostgreSQL search tests share: the annotation queue's two (`pending`: the records the caller has not
 * answered; `statusPending`: the records of status pending), the completed records, the records the caller submitted, and
 * the records of metadata genre "news".
 */
export const TEST_FILTERS: Record<
  "pending" | "statusPending" | "completed" | "submitted" | "genre",
  Extract<SearchFilter, { type: "terms" }>
> = {
  pending: { type: "terms", scope: { entity: "response_status" }, values: ["pending"] },
  statusPending: { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
  completed: { type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] },
  submitted: { type: "terms", scope: { entity: "response_status" }, values: ["submitted"] },
  genre: { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["news"] },
};

/** Test queries: the first page of 10 of a dataset's records passing `filters` (and matching `text`), in the default order. */
export function pageQuery(
  datasetId: string,
  filters: SearchFilter[],
  options: { userId?: string | null; text?: string } = {},
): SearchQuery {
  const text = options.text === undefined ? null : { q: options.text, field: null };
  return { datasetId, userId: options.userId ?? null, text, vector: null, sort: [], offset: 0, limit: 10, filters };
}

/**
 * Test set-ups: every text of `texts` with every filter set of `filterSets` in every dataset of `datasetIds`, a first page of
 * 10 and a page of 20 after 7; `userId` the caller of the queries with filters.
 */
export function textQueryMatrix(
  texts: { q: string; field: string | null }[],
  filterSets: SearchFilter[][],
  datasetIds: string[],
  userId: string,
): SearchQuery[] {
  return texts.flatMap((text) =>
    filterSets.flatMap((filters) =>
      datasetIds.flatMap((datasetId) =>
        [
          { offset: 0, limit: 10 },
          { offset: 7, limit: 20 },
        ].map((page) => ({ datasetId, userId: filters.length > 0 ? userId : null, text, vector: null, sort: [], ...page, filters })),
      ),
    ),
  );
}

/**
 * Test set-ups (PostgreSQL): the next records' seqs `gap` past the last one, then `n` records of `datasetId` with `fields`
 * (another dataset's records between a dataset's runs of records, in other buckets of seqs).
 */
export async function insertAfterGap(store: Store, gap: number, datasetId: string, n: number, fields: Record<string, string>, tag: string) {
  await sql`SELECT setval(pg_get_serial_sequence('records', 'seq'), (SELECT max(seq) FROM records) + ${gap})`.execute(store.db);
  await insertRecords(store, datasetId, n, (i) => ({ external_id: `${tag}-${i}`, fields: JSON.stringify(fields), metadata: "null" }));
}

/** Test set-ups: a response of `status` by `userId` to each of `records` (no values). */
export async function answerRecords(store: Store, records: { id: string }[], userId: string, status: "submitted" | "draft"): Promise<void> {
  await store.db
    .insertInto("responses")
    .values(
      records.map((r) => ({ id: randomUUID(), record_id: r.id, user_id: userId, status, values: "{}", inserted_at: "t", updated_at: "t" })),
    )
    .execute();
}

/** Test set-ups: a response of `status` by `userId` to each of `records` whose place among them passes `which`. */
export async function answerWhere(
  store: Store,
  records: { id: string }[],
  which: (i: number) => boolean,
  userId: string,
  status: "submitted" | "draft",
): Promise<void> {
  await answerRecords(
    store,
    records.filter((_, i) => which(i)),
    userId,
    status,
  );
}

/** Test references (PostgreSQL): a user's answered records of a dataset with one of `statuses`, ascending seqs, joined now. */
export async function answeredSeqsNow(store: Store, datasetId: string, userId: string, statuses: string[]): Promise<number[]> {
  const rows = await sql<{ seq: number | string }>`SELECT r.seq FROM responses s JOIN records r ON r.id = s.record_id
    WHERE s.user_id = ${userId} AND r.dataset_id = ${datasetId} AND s.status = ANY(${statuses}::text[]) ORDER BY r.seq`.execute(store.db);
  return rows.rows.map((r) => Number(r.seq));
}

/**
 * Test set-ups (PostgreSQL): statistics taken now and kept (autovacuum off for `responses`), then a new annotator, whose
 * responses the planner estimates at 1 however many they give: the id.
 */
export async function lateAnnotator(store: Store): Promise<string> {
  await sql`ALTER TABLE responses SET (autovacuum_enabled = off)`.execute(store.db);
  await sql`ANALYZE records, responses`.execute(store.db);
  const user = randomUUID();
  await store.db
    .insertInto("users")
    .values({
      id: user,
      username: `late-${user}`,
      first_name: "L",
      last_name: null,
      role: "annotator",
      password_hash: "x",
      api_key: `key-${user}`,
      inserted_at: "t",
      updated_at: "t",
    })
    .execute();
  return user;
}

/** Test set-ups: each of `records` marked completed. */
export async function completeRecords(store: Store, records: { id: string }[]): Promise<void> {
  await store.db
    .updateTable("records")
    .set({ status: "completed" })
    .where(
      "id",
      "in",
      records.map((r) => r.id),
    )
    .execute();
}

/** Test set-ups: each of `records` whose place among them passes `which` marked completed. */
export async function completeWhere(store: Store, records: { id: string }[], which: (i: number) => boolean): Promise<void> {
  await completeRecords(
    store,
    records.filter((_, i) => which(i)),
  );
}

/** Test set-ups: `n` pending records of `datasetId`, the i-th shaped by `shape(i)` (external id, fields and metadata as stored JSON text). */
export async function insertRecords(
  store: Store,
  datasetId: string,
  n: number,
  shape: (i: number) => { external_id: string; fields: string; metadata: string },
): Promise<{ id: string; seq: number }[]> {
  return store.db
    .insertInto("records")
    .values(
      Array.from({ length: n }, (_, i) => ({
        id: randomUUID(),
        dataset_id: datasetId,
        ...shape(i),
        status: "pending" as const,
        inserted_at: "t",
        updated_at: "t",
      })),
    )
    .returning(["id", "seq"])
    .execute();
}

/** Test set-ups (PostgreSQL, PGlite): a new empty dataset, a copy of dataset `from`'s row under a new id and name. */
export async function copyDataset(store: Store, from: string): Promise<ReturnType<typeof randomUUID>> {
  const id = randomUUID();
  await sql`INSERT INTO datasets SELECT (jsonb_populate_record(NULL::datasets, to_jsonb(d) || jsonb_build_object('id', ${id}::text, 'name', ${`copy-${id}`}::text))).*
    FROM datasets d WHERE d.id = ${from}`.execute(store.db);
  return id;
}

/**
 * Test set-ups: 2,000 pending records of `datasetId` for the PostgreSQL text tests that start from a filter's few records
 * (postgres-text-status.test.ts, postgres-text-responded.test.ts): words of every frequency, scores that do not follow
 * record order, two fields, a metadata genre.
 */
export async function insertFruitRecords(store: Store, datasetId: string, prefix: string): Promise<{ id: string; seq: number }[]> {
  const records: { id: string; seq: number }[] = [];
  for (let k = 0; k < 4; k++)
    records.push(
      ...(await insertRecords(store, datasetId, 500, (j) => {
        const i = k * 500 + j;
        return {
          external_id: `${prefix}-${i}`,
          fields: JSON.stringify({
            text: `${i % 2 === 0 ? "kiwi ".repeat(1 + (i % 3)) : ""}${i % 13 === 0 ? "papaya " : ""}lime${i % 5} ${"pad ".repeat(i % 4)}`,
            context: i % 7 === 0 ? "kiwi mango" : "other",
          }),
          metadata: JSON.stringify({ genre: i % 3 === 0 ? "blog" : "news" }),
        };
      })),
    );
  return records;
}

/**
 * Compares two text searches over the fruit records (insertFruitRecords) with each of `filterSets`: words, a phrase, a
 * prefix, a field and no match, at several offsets and bounds; `fast`'s answers must be the plain path's
 * (expectSameOrLowerTotal). Returns the cases run and those with hits.
 */
export async function expectFruitTextsAsPlain(
  plain: Pick<SearchPort, "search">,
  fast: Pick<SearchPort, "search">,
  query: (
    q: string,
    field: string | null,
    filters: SearchFilter[],
    page: { offset: number; limit: number; totalBound: number | null },
  ) => SearchQuery,
  filterSets: SearchFilter[][],
  label = "",
): Promise<{ cases: number; withHits: number }> {
  let cases = 0;
  let withHits = 0;
  for (const [q, field] of [
    ["kiwi", null],
    ["papaya", null],
    ["lime3", null],
    ["kiwi mango", null],
    ["kiw*", null],
    ["kiwi", "context"],
    ["nowhere", null],
  ] as const)
    for (const filters of filterSets)
      for (const [offset, limit, totalBound] of [
        [0, 10, null],
        [5, 10, 1000],
        [0, 50, 30],
        [400, 10, 1000],
      ] as const) {
        const base = query(q, field, filters, { offset, limit, totalBound });
        const expected = await plain.search(base);
        const got = await fast.search(base);
        expectSameOrLowerTotal(expected, got, base, `${JSON.stringify(base)} ${label}`);
        cases++;
        if (got.hits.length > 0) withHits++;
      }
  return { cases, withHits };
}

/** Test set-ups: a store (`open`) with the seeded data (seedSearchData) and the fruit records (insertFruitRecords) in its dataset. */
export async function openFruitStore(open: () => Promise<Store>, prefix: string) {
  const store = await open();
  const data = await seedSearchData(store);
  const records = await insertFruitRecords(store, data.ids.ds, prefix);
  return { store, data, records };
}

/** Test set-ups: a text query of the first page's shape (no vector, no sort). */
export function textQuery(
  base: Pick<SearchQuery, "datasetId" | "userId" | "filters">,
  q: string,
  field: string | null,
  page: { offset: number; limit: number; totalBound?: number | null },
): SearchQuery {
  return { ...base, text: { q, field }, vector: null, sort: [], ...page };
}

/** Test set-ups: the queue the PostgreSQL text tests start from: every 5th of `records` submitted by `userId`, every 7th completed. */
export async function answerAndComplete(store: Store, records: { id: string }[], userId: string): Promise<void> {
  await answerWhere(store, records, (i) => i % 5 === 0, userId, "submitted");
  await completeWhere(store, records, (i) => i % 7 === 0);
}

/**
 * A PostgreSQL text search's answer against the plain path's (`expected`): the same hits; the same total, or, when
 * the answer's total is a lower bound counted from some of the word's records (postgres-text-filtered.ts
 * READ_PER_BOUND), at most the plain path's (exact, or itself a lower bound) and at least the records up to the page shown.
 */
export function expectSameOrLowerTotal(got: SearchResult, expected: SearchResult, query: SearchQuery, label: string): void {
  expect(got.hits, label).toEqual(expected.hits);
  if (got.totalIsLowerBound && !(expected.totalIsLowerBound && expected.total === got.total)) {
    expect(got.total, label).toBeLessThanOrEqual(expected.total);
    if (got.hits.length > 0) expect(got.total, label).toBeGreaterThanOrEqual(query.offset + got.hits.length);
  } else expect(got, label).toEqual(expected);
}

export async function seedSearchData(store: Store) {
  const db = store.db;
  const ids = {
    ws: randomUUID(),
    ds: randomUUID(),
    other: randomUUID(),
    u1: randomUUID(),
    u2: randomUUID(),
    label: randomUUID(),
    emb: randomUUID(),
    otherEmb: randomUUID(),
  };
  await db
    .insertInto("users")
    .values(
      [ids.u1, ids.u2].map((id, i) => ({
        id,
        username: `user-${i}-${id.slice(0, 6)}`,
        first_name: "U",
        last_name: null,
        role: "annotator" as const,
        password_hash: "x",
        api_key: `key-${id}`,
        inserted_at: ts(1),
        updated_at: ts(1),
      })),
    )
    .execute();
  await db
    .insertInto("workspaces")
    .values({ id: ids.ws, name: `ws-${ids.ws}`, inserted_at: ts(1), updated_at: ts(1) })
    .execute();
  await db
    .insertInto("datasets")
    .values(
      [ids.ds, ids.other].map((id) => ({
        id,
        name: `ds-${id}`,
        guidelines: null,
        allow_extra_metadata: 1,
        status: "ready" as const,
        distribution: '{"strategy":"overlap","min_submitted":1}',
        metadata: null,
        workspace_id: ids.ws,
        inserted_at: ts(1),
        updated_at: ts(1),
        last_activity_at: ts(1),
      })),
    )
    .execute();
  await db
    .insertInto("questions")
    .values({
      id: ids.label,
      dataset_id: ids.ds,
      name: "label",
      title: "Label",
      description: null,
      required: 1,
      settings: '{"type":"label_selection","options":[]}',
      inserted_at: ts(1),
      updated_at: ts(1),
    })
    .execute();
  await db
    .insertInto("vectors_settings")
    .values([
      { id: ids.emb, dataset_id: ids.ds, name: "emb", title: "Emb", dimensions: 3, inserted_at: ts(1), updated_at: ts(1) },
      { id: ids.otherEmb, dataset_id: ids.other, name: "emb", title: "Emb", dimensions: 3, inserted_at: ts(1), updated_at: ts(1) },
    ])
    .execute();
  const records = [
    {
      ext: "a",
      ds: ids.ds,
      fields: { text: "The quick brown fox", context: "animals" },
      metadata: { genre: "news", n: 1, tags: ["x", "y"] },
      vector: [1, 0, 0],
    },
    {
      ext: "b",
      ds: ids.ds,
      fields: { text: "Lazy dogs sleep", context: "café culture" },
      metadata: { genre: "forum", n: 5, tags: ["y"] },
      vector: [0.9, 0.1, 0],
    },
    { ext: "c", ds: ids.ds, fields: { text: "Quick thinking wins" }, metadata: { genre: "blog", n: 10 }, vector: [0, 1, 0] },
    { ext: "d", ds: ids.ds, fields: { text: "nothing here" }, metadata: null, vector: null },
    { ext: "z", ds: ids.other, fields: { text: "quick fox in another dataset" }, metadata: { genre: "news" }, vector: [1, 0, 0] },
  ];
  const byExt: Record<string, string> = {};
  for (const [i, r] of records.entries()) {
    const id = randomUUID();
    byExt[r.ext] = id;
    await db
      .insertInto("records")
      .values({
        id,
        dataset_id: r.ds,
        external_id: r.ext,
        fields: JSON.stringify(r.fields),
        metadata: r.metadata ? JSON.stringify(r.metadata) : null,
        status: "pending",
        inserted_at: ts(i + 1),
        updated_at: ts(i + 1),
      })
      .execute();
    await indexRecordTexts(db);
    if (r.vector)
      await db
        .insertInto("record_vectors")
        .values({ vector_settings_id: r.ds === ids.ds ? ids.emb : ids.otherEmb, record_id: id, vector: encodeVector(r.vector) })
        .execute();
  }
  const response = (recordId: string, userId: string, status: "submitted" | "discarded" | "draft", values: unknown) => ({
    id: randomUUID(),
    record_id: recordId,
    user_id: userId,
    status,
    values: JSON.stringify(values),
    inserted_at: ts(1),
    updated_at: ts(1),
  });
  await db
    .insertInto("responses")
    .values([
      response(byExt.a!, ids.u1, "submitted", { label: { value: "pos" } }),
      response(byExt.b!, ids.u2, "discarded", { label: { value: "neg" } }),
      response(byExt.c!, ids.u1, "draft", { label: { value: "neu" } }),
    ])
    .execute();
  const suggestion = (recordId: string, value: unknown, score: unknown, agent: string) => ({
    id: randomUUID(),
    record_id: recordId,
    question_id: ids.label,
    value: JSON.stringify(value),
    score: JSON.stringify(score),
    agent,
    type: "model" as const,
    inserted_at: ts(1),
    updated_at: ts(1),
  });
  await db
    .insertInto("suggestions")
    .values([suggestion(byExt.a!, "pos", 0.9, "bert"), suggestion(byExt.b!, ["neg", "pos"], [0.2, 0.7], "gpt")])
    .execute();
  return { ids, byExt };
}

export function searchPortSuite(adapter: string, open: () => Promise<SearchSuiteTarget>): void {
  describe(`search port contract: ${adapter}`, () => {
    let target: SearchSuiteTarget;
    let data: Awaited<ReturnType<typeof seedSearchData>>;
    const query = (q: Partial<SearchQuery>): SearchQuery => ({
      datasetId: data.ids.ds,
      userId: null,
      text: null,
      vector: null,
      filters: [],
      sort: [],
      offset: 0,
      limit: 50,
      ...q,
    });
    const extOf = (id: string) => Object.entries(data.byExt).find(([, v]) => v === id)?.[0];
    const exts = async (q: Partial<SearchQuery>) => (await target.port.search(query(q))).hits.map((h) => extOf(h.recordId));
    const md = (name: string) => ({ entity: "metadata" as const, name });
    const terms = (scope: SearchFilter["scope"], values: unknown[]): SearchFilter => ({ type: "terms", scope, values });
    const range = (scope: SearchFilter["scope"], ge: number | string | null, le: number | string | null): SearchFilter => ({
      type: "range",
      scope,
      ge,
      le,
    });

    beforeAll(async () => {
      target = await open();
      data = await seedSearchData(target.store);
    }, 60_000);
    afterAll(async () => {
      await target?.store.close();
    });

    it("lists a dataset's records in insertion order, paged, with the total", async () => {
      expect(await exts({})).toEqual(["a", "b", "c", "d"]);
      const page = await target.port.search(query({ offset: 1, limit: 2 }));
      expect(page.hits.map((h) => extOf(h.recordId))).toEqual(["b", "c"]);
      expect(page.total).toBe(4);
      expect(page.hits[0]!.score).toBeNull();
    });

    it("matches every word within one field, over all fields or one, accent-insensitive, with prefixes", async () => {
      const quick = await target.port.search(query({ text: { q: "quick", field: null } }));
      expect(quick.hits.map((h) => extOf(h.recordId)).sort()).toEqual(["a", "c"]);
      expect(quick.total).toBe(2);
      expect(quick.hits.every((h) => typeof h.score === "number")).toBe(true);
      expect(await exts({ text: { q: "quick fox", field: null } })).toEqual(["a"]);
      expect(await exts({ text: { q: "fox animals", field: null } })).toEqual([]);
      expect(await exts({ text: { q: "CAFE", field: "context" } })).toEqual(["b"]);
      expect(await exts({ text: { q: "cafe", field: "text" } })).toEqual([]);
      expect(await exts({ text: { q: "thi*", field: null } })).toEqual(["c"]);
      expect(await exts({ text: { q: "   ", field: null } })).toEqual([]);
      expect(await exts({ text: { q: '"quick" OR \' : & | !', field: null } })).toEqual([]);
    });

    it("answers any text (control characters, quotes, operators, backslashes, 10,000 characters) without an error", async () => {
      for (const q of HOSTILE_SEARCH_TEXTS) {
        for (const extra of [
          {},
          { userId: data.ids.u1, filters: [terms({ entity: "response_status" }, ["pending"])] },
          { text: { q, field: "text" } },
          { sort: [{ scope: md("n"), order: "desc" as const }] },
        ]) {
          const result = await target.port.search(query({ text: { q, field: null }, ...extra }));
          expect(result.total, JSON.stringify(q.slice(0, 40))).toBeGreaterThanOrEqual(result.hits.length);
        }
      }
      // The words around a control character still match (NUL and BEL are word breaks, not the end of the text).
      expect(await exts({ text: { q: "quick\u0000fox", field: null } })).toEqual(["a"]);
      expect((await exts({ text: { q: "\u0007quick\u0000", field: "text" } })).sort()).toEqual(["a", "c"]);
    });

    it("filters on metadata terms (list values item by item) and ranges", async () => {
      expect(await exts({ filters: [terms(md("genre"), ["news", "blog"])] })).toEqual(["a", "c"]);
      expect(await exts({ filters: [terms(md("tags"), ["y"])] })).toEqual(["a", "b"]);
      expect(await exts({ filters: [range(md("n"), 2, 10)] })).toEqual(["b", "c"]);
      expect(await exts({ filters: [range(md("n"), null, 5)] })).toEqual(["a", "b"]);
      expect(await exts({ filters: [terms(md("genre"), ["news"]), range(md("n"), 0, 100)] })).toEqual(["a"]);
      expect(await exts({ filters: [terms(md("missing"), ["x"])] })).toEqual([]);
    });

    it("filters on record properties, response status (pending = no response) and values, per user", async () => {
      expect(await exts({ filters: [terms({ entity: "record", property: "external_id" }, ["b", "d"])] })).toEqual(["b", "d"]);
      expect(
        await exts({ filters: [range({ entity: "record", property: "inserted_at" }, "2024-01-01T12:00:00Z", "2024-01-03T00:00:00")] }),
      ).toEqual(["b", "c"]);
      expect(await exts({ filters: [terms({ entity: "response_status" }, ["pending"])] })).toEqual(["d"]);
      expect(await exts({ filters: [terms({ entity: "response_status" }, ["submitted", "draft"])] })).toEqual(["a", "c"]);
      expect(await exts({ userId: data.ids.u1, filters: [terms({ entity: "response_status" }, ["pending"])] })).toEqual(["b", "d"]);
      expect(await exts({ filters: [terms({ entity: "response_value", questionName: "label" }, ["neg", "neu"])] })).toEqual(["b", "c"]);
      expect(
        await exts({ userId: data.ids.u1, filters: [terms({ entity: "response_value", questionName: "label" }, ["neg", "neu"])] }),
      ).toEqual(["c"]);
    });

    it("counts a user's pending queue exactly, alone and with other filters, whatever the page", async () => {
      const pending = terms({ entity: "response_status" }, ["pending"]);
      const total = async (q: Partial<SearchQuery>) => (await target.port.search(query({ limit: 1, ...q }))).total;
      expect(await total({ userId: data.ids.u1, filters: [pending] })).toBe(2);
      expect(await total({ userId: data.ids.u2, filters: [pending] })).toBe(3);
      expect(await total({ userId: data.ids.u1, filters: [pending, terms({ entity: "record", property: "status" }, ["pending"])] })).toBe(
        2,
      );
      expect(await total({ userId: data.ids.u1, filters: [pending, terms(md("genre"), ["news", "forum"])] })).toBe(1);
      expect(await total({ userId: data.ids.u1, filters: [pending, terms({ entity: "response_status" }, ["draft"])] })).toBe(0);
      expect(await total({ userId: data.ids.u1, offset: 5, filters: [pending] })).toBe(2);
    });

    it("counts and pages text matches with filters, pending (admin and per user), one field, and another sort", async () => {
      const pending = terms({ entity: "response_status" }, ["pending"]);
      const search = (q: Partial<SearchQuery>) => target.port.search(query(q));
      const quick = { q: "quick", field: null };
      expect((await search({ text: quick, filters: [pending] })).total).toBe(0);
      expect((await search({ userId: data.ids.u1, text: quick, filters: [pending] })).total).toBe(0);
      const u2 = await search({ userId: data.ids.u2, text: quick, filters: [pending], limit: 1 });
      expect(u2.total).toBe(2);
      expect(u2.hits).toHaveLength(1);
      const second = await search({ userId: data.ids.u2, text: quick, filters: [pending], limit: 1, offset: 1 });
      expect(second.total).toBe(2);
      expect([...u2.hits, ...second.hits].map((h) => extOf(h.recordId)).sort()).toEqual(["a", "c"]);
      expect((await search({ userId: data.ids.u2, text: quick, filters: [pending], offset: 2 })).hits).toEqual([]);
      expect(
        (await search({ text: { q: "dogs", field: null }, filters: [terms({ entity: "response_status" }, ["discarded"])] })).total,
      ).toBe(1);
      expect((await search({ text: { q: "animals", field: "context" }, filters: [terms(md("genre"), ["news"])] })).total).toBe(1);
      expect((await search({ text: { q: "animals", field: "text" } })).total).toBe(0);
      const sorted = await search({ text: quick, sort: [{ scope: md("n"), order: "desc" }] });
      expect(sorted.hits.map((h) => extOf(h.recordId))).toEqual(["c", "a"]);
      expect(sorted.total).toBe(2);
      expect(sorted.hits.every((h) => typeof h.score === "number" && h.score > 0)).toBe(true);
      expect((await search({ filters: [pending], limit: 1 })).total).toBe(1);
      expect((await search({ filters: [pending, terms(md("genre"), ["news"])] })).total).toBe(0);
    });

    it("filters on suggestion values, agents and scores", async () => {
      const scope = (property: "value" | "agent" | "score") => ({ entity: "suggestion" as const, questionId: data.ids.label, property });
      expect(await exts({ filters: [terms(scope("value"), ["pos"])] })).toEqual(["a", "b"]);
      expect(await exts({ filters: [terms(scope("agent"), ["gpt"])] })).toEqual(["b"]);
      expect(await exts({ filters: [range(scope("score"), 0.8, null)] })).toEqual(["a"]);
      expect(await exts({ filters: [range(scope("score"), 0.5, 0.8)] })).toEqual(["b"]);
    });

    it("sorts with missing values last in both directions, then by insertion", async () => {
      const sort = (s: SearchSort[]) => exts({ sort: s });
      expect(await sort([{ scope: md("n"), order: "desc" }])).toEqual(["c", "b", "a", "d"]);
      expect(await sort([{ scope: md("n"), order: "asc" }])).toEqual(["a", "b", "c", "d"]);
      expect(await sort([{ scope: md("genre"), order: "asc" }])).toEqual(["c", "b", "a", "d"]);
      expect(await sort([{ scope: { entity: "record", property: "inserted_at" }, order: "desc" }])).toEqual(["d", "c", "b", "a"]);
      expect(await sort([{ scope: { entity: "suggestion", questionId: data.ids.label, property: "score" }, order: "desc" }])).toEqual([
        "a",
        "b",
        "c",
        "d",
      ]);
      expect(await sort([{ scope: { entity: "response_value", questionName: "label" }, order: "asc" }])).toEqual(["b", "c", "a", "d"]);
    });

    it("orders by cosine similarity, both ways, bounded, excluding the reference, with filters", async () => {
      const vector = (
        value: number[],
        order: "most_similar" | "least_similar" = "most_similar",
        excludeRecordId: string | null = null,
      ) => ({ settingsId: data.ids.emb, value, order, excludeRecordId });
      const most = await target.port.search(query({ vector: vector([1, 0, 0]) }));
      expect(most.hits.map((h) => extOf(h.recordId))).toEqual(["a", "b", "c"]);
      expect(most.hits[0]!.score).toBeCloseTo(1, 5);
      expect(most.hits[2]!.score).toBeCloseTo(0, 5);
      expect(await exts({ vector: vector([1, 0, 0], "least_similar") })).toEqual(["c", "b", "a"]);
      expect(await exts({ vector: vector([1, 0, 0], "most_similar", data.byExt.a!), limit: 1 })).toEqual(["b"]);
      expect(await exts({ vector: vector([1, 0, 0]), filters: [terms(md("genre"), ["forum", "blog"])] })).toEqual(["b", "c"]);
    });

    it("keeps similarity and metadata filters exact after records and vectors are added, changed and removed", async () => {
      const db = target.store.db;
      const vector = { settingsId: data.ids.emb, value: [0, 0, 1], order: "most_similar" as const, excludeRecordId: null };
      expect(await exts({ vector, limit: 1 })).toEqual(["a"]); // ties at distance 1: insertion order
      expect(await exts({ filters: [terms(md("genre"), ["poetry"])] })).toEqual([]);
      const id = randomUUID();
      await db
        .insertInto("records")
        .values({
          id,
          dataset_id: data.ids.ds,
          external_id: "e",
          fields: JSON.stringify({ text: "late" }),
          metadata: JSON.stringify({ genre: "poetry", n: 7 }),
          status: "pending",
          inserted_at: ts(6),
          updated_at: ts(6),
        })
        .execute();
      await db
        .insertInto("record_vectors")
        .values({ vector_settings_id: data.ids.emb, record_id: id, vector: encodeVector([0, 0.1, 1]) })
        .execute();
      data.byExt.e = id;
      expect(await exts({ vector, limit: 1 })).toEqual(["e"]);
      expect(await exts({ filters: [terms(md("genre"), ["poetry"])] })).toEqual(["e"]);
      await db
        .updateTable("record_vectors")
        .set({ vector: encodeVector([0, 1, 0]) })
        .where("record_id", "=", id)
        .execute();
      await db
        .updateTable("records")
        .set({ metadata: JSON.stringify({ genre: "prose" }) })
        .where("id", "=", id)
        .execute();
      expect(await exts({ vector: { ...vector, value: [0, 1, 0] }, limit: 2 })).toEqual(["c", "e"]);
      expect(await exts({ filters: [terms(md("genre"), ["poetry"])] })).toEqual([]);
      expect(await exts({ filters: [terms(md("genre"), ["prose"])] })).toEqual(["e"]);
      await db.deleteFrom("records").where("id", "=", id).execute();
      delete data.byExt.e;
      expect(await exts({ vector: { ...vector, value: [0, 1, 0] } })).toEqual(["c", "b", "a"]);
      expect(await exts({ filters: [terms(md("genre"), ["prose"])] })).toEqual([]);
    });
  });
}

/**
 * Test set-ups: a team at work on `records` (in seq order): the first `head` completed (the completed head), every 7th
 * further on completed too, and every 6th after the head submitted by `userId` (its answered pending records).
 */
export async function workQueue(store: Store, records: { id: string }[], head: number, userId: string): Promise<void> {
  await completeRecords(store, records.slice(0, head));
  await completeWhere(store, records, (i) => i % 7 === 3);
  await answerWhere(store, records, (i) => i >= head && i % 6 === 0, userId, "submitted");
}
