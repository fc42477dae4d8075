import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/database.js";
import { indexRecordTexts } from "../records/ingest.js";
import { openTempStore } from "../testing/temp-store.js";
import { seededRandom } from "../testing/random.js";
import { filterCountLimit, totalBoundFor, type SearchFilter, type SearchQuery, type SearchSort } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";
import { SqliteSearch } from "./sqlite-search.js";
import { sortedRun } from "./sqlite-sort-keys.js";

/**
 * The annotation page's filters and sorts without text from candidates (sqlite-candidates.ts: answered records,
 * metadata columns and suggestion keys in sort order) against the plain SQL path (`candidates: false`, no columns,
 * no answered sets) on 2,400 records with suggestions (single and multi-label, some without, several agents),
 * responses of three users (submitted, draft, discarded; label and rating values), metadata with missing values,
 * completed records and another dataset's records in between: same pages at several offsets (into the records
 * without a sort value, past the end) and the same totals, exact and bounded as the route bounds them.
 */
describe("SQLite searches from candidates", () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  let fast: SqliteSearch;
  let plain: SqliteSearch;
  const random = seededRandom(3131);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const users: string[] = [];
  const ts = (i: number) => `2024-01-01T00:${String(Math.floor(i / 60) % 60).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}`;

  const addRecords = async (count: number, from: number) => {
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      const datasetId = random() < 0.9 ? data.ids.ds : data.ids.other;
      const metadata: Record<string, unknown> = {};
      if (random() < 0.8) metadata.length = Math.floor(random() * 50);
      if (random() < 0.7) metadata.source = pick(["news", "forum", "Web", "blog"]);
      await store.db
        .insertInto("records")
        .values({
          id,
          dataset_id: datasetId,
          external_id: `x-${from + i}`,
          fields: '{"text":"x"}',
          metadata: JSON.stringify(metadata),
          status: random() < 0.15 ? "completed" : "pending",
          inserted_at: ts(from + i),
          updated_at: ts(Math.floor(random() * 400)),
        })
        .execute();
      if (datasetId === data.ids.ds && random() < 0.85) {
        const multi = random() < 0.2;
        await store.db
          .insertInto("suggestions")
          .values({
            id: randomUUID(),
            record_id: id,
            question_id: data.ids.label,
            value: JSON.stringify(multi ? [pick(["pos", "neg"]), "neu"] : pick(["pos", "neg", "neu"])),
            score:
              random() < 0.1 ? null : JSON.stringify(multi ? [Math.round(random() * 100) / 100, 0.5] : Math.round(random() * 100) / 100),
            agent: pick(["bert", "gpt", "rules"]),
            type: "model",
            inserted_at: ts(1),
            updated_at: ts(1),
          })
          .execute();
      }
      for (const user of users)
        if (random() < 0.12)
          await store.db
            .insertInto("responses")
            .values({
              id: randomUUID(),
              record_id: id,
              user_id: user,
              status: pick(["submitted", "submitted", "draft", "discarded"]),
              values: JSON.stringify(
                random() < 0.9 ? { label: { value: pick(["pos", "neg", "neu"]) }, rating: { value: 1 + Math.floor(random() * 5) } } : {},
              ),
              inserted_at: ts(1),
              updated_at: ts(1),
            })
            .execute();
    }
  };

  beforeAll(async () => {
    store = await openTempStore("tessera-candidates-");
    data = await seedSearchData(store);
    const third = randomUUID();
    await store.db
      .insertInto("users")
      .values({
        id: third,
        username: `user-3-${third.slice(0, 6)}`,
        first_name: "U",
        last_name: null,
        role: "annotator",
        password_hash: "x",
        api_key: `key-${third}`,
        inserted_at: ts(1),
        updated_at: ts(1),
      })
      .execute();
    users.push(data.ids.u1, data.ids.u2, third);
    await addRecords(2_400, 10);
    fast = new SqliteSearch(store.db);
    plain = new SqliteSearch(store.db, { candidates: false, metadataColumns: false, answered: false });
  }, 120_000);
  afterAll(async () => {
    await store.close();
  });

  const pending: SearchFilter = { type: "terms", scope: { entity: "response_status" }, values: ["pending"] };
  const suggestion = (property: "value" | "score" | "agent" | "type") => ({
    entity: "suggestion" as const,
    questionId: data.ids.label,
    property,
  });
  const filterShapes = (): SearchFilter[][] => [
    [pending, { type: "terms", scope: suggestion("value"), values: ["pos"] }],
    [pending, { type: "range", scope: suggestion("score"), ge: 0.8, le: null }],
    [
      pending,
      { type: "terms", scope: { entity: "metadata", name: "source" }, values: ["news"] },
      { type: "terms", scope: suggestion("agent"), values: ["bert"] },
    ],
    [
      { type: "terms", scope: { entity: "response_status" }, values: ["submitted"] },
      { type: "terms", scope: { entity: "response_value", questionName: "label" }, values: ["pos"] },
    ],
    [{ type: "terms", scope: { entity: "response_value", questionName: "label" }, values: ["neg"] }],
    [{ type: "range", scope: { entity: "response_value", questionName: "rating" }, ge: 4, le: null }],
    [
      { type: "terms", scope: { entity: "response_status" }, values: ["discarded", "draft"] },
      { type: "terms", scope: suggestion("value"), values: ["neu"] },
    ],
    [pending, { type: "terms", scope: { entity: "metadata", name: "source" }, values: ["news", "Web"] }],
    [{ type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] }],
    [pending],
    [],
  ];
  const sorts = (): SearchSort[][] => [
    [],
    [{ scope: suggestion("score"), order: "desc" }],
    [{ scope: suggestion("score"), order: "asc" }],
    [{ scope: suggestion("value"), order: "asc" }],
    [{ scope: suggestion("agent"), order: "desc" }],
    [{ scope: { entity: "metadata", name: "length" }, order: "desc" }],
    [{ scope: { entity: "metadata", name: "source" }, order: "asc" }],
    [{ scope: { entity: "record", property: "updated_at" }, order: "desc" }],
    [{ scope: { entity: "response_value", questionName: "label" }, order: "asc" }],
    [{ scope: { entity: "response_value", questionName: "rating" }, order: "desc" }],
  ];
  const queries = (): SearchQuery[] => {
    const out: SearchQuery[] = [];
    for (const filters of filterShapes())
      for (const sort of sorts())
        for (const userId of [data.ids.u1, null])
          for (const offset of [0, pick([10, 400, 1_600, 2_100, 5_000])])
            out.push({ datasetId: data.ids.ds, userId, text: null, vector: null, filters, sort, offset, limit: 10 });
    return out;
  };

  const compareAll = async () => {
    for (const q of queries()) {
      const expected = await plain.search(q);
      expect(await fast.search(q), JSON.stringify(q)).toEqual(expected);
      // Bounded as the route bounds it (a filter other than the queue's): exact up to the bound, then the bound.
      const bounded = { ...q, totalBound: totalBoundFor(q, 10_000), filterBound: 50 };
      const limit = filterCountLimit(bounded, null);
      const got = await fast.search(bounded);
      expect(got.hits, JSON.stringify(bounded)).toEqual(expected.hits);
      if (limit !== null && expected.total > limit) expect(got).toMatchObject({ total: limit, totalIsLowerBound: true });
      else expect(got.total).toBe(expected.total);
      expect(await plain.search(bounded), JSON.stringify(bounded)).toEqual(got);
    }
  };

  it("gives the plain path's pages and totals for every filter and sort shape", async () => {
    await compareAll();
    // The candidates answered: from answered records, and in sort order from memory.
    expect(fast.candidatePages.answered).toBeGreaterThan(100);
    expect(fast.candidatePages.sorted).toBeGreaterThan(100);
    expect(plain.candidatePages).toEqual({ answered: 0, sorted: 0 });
    // The sorts' runs are counted in the search's memory.
    expect(fast.memoryBytes().sort_keys).toBeGreaterThan(0);
    expect(plain.memoryBytes().sort_keys).toBe(0);
  }, 300_000);

  it("stays equal after suggestions, responses, metadata and records change", async () => {
    const records = await store.db.selectFrom("records").select(["id"]).where("dataset_id", "=", data.ids.ds).execute();
    for (let i = 0; i < 40; i++) {
      const r = pick(records);
      await store.db.updateTable("suggestions").set({ score: "0.99" }).where("record_id", "=", r.id).execute();
      await store.db
        .updateTable("records")
        .set({ metadata: JSON.stringify({ length: 1000 + i }) })
        .where("id", "=", pick(records).id)
        .execute();
    }
    await store.db.deleteFrom("records").where("id", "=", pick(records).id).execute();
    await addRecords(100, 5_000);
    await compareAll();
  }, 300_000);

  it("counts a text search with a filter other than the queue's up to the filter bound, the pages unchanged", async () => {
    await indexRecordTexts(store.db);
    const filters: SearchFilter[][] = [
      [pending, { type: "terms", scope: suggestion("value"), values: ["pos"] }],
      [{ type: "terms", scope: { entity: "response_value", questionName: "label" }, values: ["neg"] }],
    ];
    for (const f of filters)
      for (const userId of [data.ids.u1, null]) {
        const q: SearchQuery = {
          datasetId: data.ids.ds,
          userId,
          text: { q: "x", field: null },
          vector: null,
          filters: f,
          sort: [],
          offset: 0,
          limit: 10,
        };
        const exact = await fast.search({ ...q, totalBound: 10_000 });
        expect(exact.totalIsLowerBound).toBeUndefined();
        expect(exact.total).toBeGreaterThan(60);
        const bounded = await fast.search({ ...q, totalBound: 10_000, filterBound: 50 });
        expect(bounded).toEqual({ hits: exact.hits, total: 50, totalIsLowerBound: true });
        // The queue's filters alone keep the text bound.
        const queue = await fast.search({ ...q, filters: [pending], totalBound: 10_000, filterBound: 50 });
        expect(queue.totalIsLowerBound).toBeUndefined();
      }
  }, 120_000);

  it("sorts keys as SQLite does: numbers before strings, strings by their bytes, ties by seq", () => {
    const run = sortedRun([5, 1, 9, 3, 7, 2], [2, "b", 2, "B", "é", 10]);
    expect(Array.from(run.asc)).toEqual([5, 9, 2, 3, 1, 7]);
    expect(Array.from(run.desc)).toEqual([7, 1, 3, 2, 5, 9]);
    expect(Array.from(sortedRun([], []).asc)).toEqual([]);
  });
});
