import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedStore, type Store } from "../db/database.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";
import { SqliteMetadata } from "./sqlite-metadata.js";
import { SqliteSearch } from "./sqlite-search.js";
import { seededRandom } from "../testing/random.js";
import { addResponses } from "../testing/responses.js";

/**
 * The in-memory metadata columns (sqlite-metadata.ts) against the SQL path (`metadataColumns: false`)
 * on randomized data: same hits, order and totals, also after records are added, updated, deleted and
 * answered through the same warm adapter.
 */
describe("SQLite metadata columns", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  const random = seededRandom(1234);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const sources = ["news", "forum", "web", "blog"];
  const ts = "2024-01-01T00:00:00";

  const metadataOf = () => {
    const m: Record<string, unknown> = {};
    if (random() < 0.9) m.source = pick(sources);
    if (random() < 0.85) m.quality = Math.round(random() * 100) / 100;
    if (random() < 0.8) m.n = Math.floor(random() * 10);
    if (random() < 0.5) m.tags = [pick(sources), pick(sources)];
    if (random() < 0.5) m.mixed = random() < 0.5 ? "a" : 3;
    // Strings that read as numbers are numbers in record_metadata (NUMERIC affinity): SQL answers for them.
    if (random() < 0.5) m.code = random() < 0.5 ? "12" : "x";
    return random() < 0.05 ? null : m;
  };
  const insertRecords = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const datasetId = random() < 0.8 ? data.ids.ds : data.ids.other;
      await store.db
        .insertInto("records")
        .values({
          id: randomUUID(),
          dataset_id: datasetId,
          external_id: `r-${randomUUID()}`,
          fields: '{"text":"x"}',
          metadata: JSON.stringify(metadataOf()),
          status: random() < 0.2 ? "completed" : "pending",
          inserted_at: ts,
          updated_at: ts,
        })
        .execute();
    }
  };
  const answer = async (userId: string, count: number) => {
    const records = await store.db.selectFrom("records").select("id").where("dataset_id", "=", data.ids.ds).execute();
    const answered = new Set(
      (await store.db.selectFrom("responses").select("record_id").where("user_id", "=", userId).execute()).map((r) => r.record_id),
    );
    for (let i = 0; i < count; i++) {
      const recordId = pick(records).id;
      if (answered.has(recordId)) continue;
      answered.add(recordId);
      await addResponses(store.db, [recordId], userId, pick(["submitted", "draft", "discarded"] as const));
    }
  };

  const md = (name: string) => ({ entity: "metadata" as const, name });
  const randomFilters = (): SearchFilter[] => {
    const filters: SearchFilter[] = [];
    const r = random();
    if (r < 0.3)
      filters.push({
        type: "terms",
        scope: md("source"),
        values: sources.filter(() => random() < 0.4).concat(random() < 0.2 ? (["none", 5] as never[]) : []),
      });
    if (r > 0.2 && r < 0.7) {
      const a = Math.round(random() * 100) / 100,
        b = Math.round(random() * 100) / 100;
      filters.push({
        type: "range",
        scope: md("quality"),
        ge: random() < 0.2 ? null : Math.min(a, b),
        le: random() < 0.2 ? null : Math.max(a, b),
      });
    }
    if (r > 0.6) filters.push({ type: "terms", scope: md("n"), values: [pick([0, 1, 2, 3]), pick([4, 5, 6, 7, 8, 9, true])] });
    if (random() < 0.1) filters.push({ type: "range", scope: md("n"), ge: 3, le: null });
    if (random() < 0.1) filters.push({ type: "terms", scope: md("tags"), values: [pick(sources)] });
    if (random() < 0.1) filters.push({ type: "terms", scope: md("mixed"), values: ["a", 3] });
    if (random() < 0.05) filters.push({ type: "terms", scope: md("source"), values: ["5"] });
    if (random() < 0.1) filters.push({ type: "terms", scope: md("code"), values: [pick(["12", 12, "x"])] });
    if (filters.length === 0) filters.push({ type: "terms", scope: md("source"), values: [pick(sources)] });
    if (random() < 0.7) filters.push({ type: "terms", scope: { entity: "response_status" }, values: ["pending"] });
    if (random() < 0.7)
      filters.push({
        type: "terms",
        scope: { entity: "record", property: "status" },
        values: random() < 0.8 ? ["pending"] : ["completed", "pending"],
      });
    return filters;
  };
  const query = (filters: SearchFilter[]): SearchQuery => ({
    datasetId: data.ids.ds,
    userId: random() < 0.7 ? pick([data.ids.u1, data.ids.u2]) : null,
    text: null,
    vector: null,
    filters,
    sort: [],
    offset: pick([0, 0, 0, 3, 40]),
    limit: pick([1, 10, 50]),
  });

  let columns: SqliteSearch;
  let sql: SqliteSearch;
  let direct: SqliteMetadata;
  let fromRecords: SqliteMetadata;
  let stepped: SqliteMetadata;
  const compare = async (n: number) => {
    let nonEmpty = 0,
      fromColumns = 0,
      fromJson = 0;
    for (let i = 0; i < n; i++) {
      const q = query(randomFilters());
      const expected = await sql.search(q);
      expect(await columns.search(q), JSON.stringify(q)).toEqual(expected);
      // The same through the columns alone (null: a shape or property left to SQL, e.g. lists, mixed
      // types), loaded from record_metadata and from the records' JSON.
      const got = await direct.search(q);
      if (got) {
        fromColumns++;
        expect(got, JSON.stringify(q)).toEqual(expected);
      }
      const got2 = await fromRecords.search(q);
      if (got2) {
        fromJson++;
        expect(got2, JSON.stringify(q)).toEqual(expected);
      }
      // And loaded step by step (37 records per step).
      const got3 = await stepped.search(q);
      if (got3) expect(got3, JSON.stringify(q)).toEqual(expected);
      if (expected.total > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(n / 4);
    expect(fromColumns).toBeGreaterThan(n / 2);
    expect(fromJson).toBeGreaterThan(n / 2);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-metadata-"));
    store = await openEmbeddedStore(dir);
    data = await seedSearchData(store);
    await insertRecords(400);
    await answer(data.ids.u1, 60);
    await answer(data.ids.u2, 30);
    columns = new SqliteSearch(store.db);
    sql = new SqliteSearch(store.db, { metadataColumns: false });
    direct = new SqliteMetadata(store.db);
    fromRecords = new SqliteMetadata(store.db, undefined, { fromRecords: true });
    stepped = new SqliteMetadata(store.db, undefined, { fromRecords: true, loadStep: 37 });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives the SQL path's hits and totals on random filters", async () => {
    await compare(150);
  });

  it("loads a large column step by step, other work running between the steps", async () => {
    let steps = 0,
      ticks = 0;
    const tick = setInterval(() => {
      ticks++;
    }, 0);
    const metadata = new SqliteMetadata(store.db, undefined, {
      fromRecords: true,
      loadStep: 50,
      onLoadStep: async () => {
        steps++;
        await new Promise((r) => setTimeout(r, 2));
      },
    });
    const q: SearchQuery = {
      datasetId: data.ids.ds,
      userId: null,
      text: null,
      vector: null,
      sort: [],
      offset: 0,
      limit: 20,
      filters: [{ type: "range", scope: md("quality"), ge: 0.2, le: 0.8 }],
    };
    try {
      expect(await metadata.search(q)).toEqual(await sql.search(q));
    } finally {
      clearInterval(tick);
    }
    expect(steps).toBeGreaterThanOrEqual(8); // 400+ records, 50 per step
    expect(ticks).toBeGreaterThanOrEqual(steps - 1);
    expect(metadata.steppedLoads).toEqual({ done: 1, discarded: 0 });
  });

  it("drops a step-by-step load when the dataset's metadata changes meanwhile, and still answers exactly", async () => {
    const target = (
      await store.db
        .selectFrom("records")
        .select("id")
        .where("dataset_id", "=", data.ids.ds)
        .orderBy("seq", "desc")
        .limit(1)
        .executeTakeFirstOrThrow()
    ).id;
    let changed = false;
    const metadata = new SqliteMetadata(store.db, undefined, {
      fromRecords: true,
      loadStep: 50,
      onLoadStep: async () => {
        if (changed) return;
        changed = true;
        await store.db
          .updateTable("records")
          .set({ metadata: '{"source":"changed-mid-load","quality":0.5}' })
          .where("id", "=", target)
          .execute();
      },
    });
    const q: SearchQuery = {
      datasetId: data.ids.ds,
      userId: null,
      text: null,
      vector: null,
      sort: [],
      offset: 0,
      limit: 500,
      filters: [{ type: "terms", scope: md("source"), values: ["changed-mid-load"] }],
    };
    const got = await metadata.search(q);
    expect(metadata.steppedLoads).toEqual({ done: 0, discarded: 1 });
    expect(got).toEqual(await sql.search(q));
    expect(got!.hits.map((h) => h.recordId)).toEqual([target]);
  });

  it("a step-by-step load after new records keeps every column of the dataset on the same records", async () => {
    const metadata = new SqliteMetadata(store.db, undefined, { fromRecords: true, loadStep: 60 });
    const q = (filters: SearchFilter[]): SearchQuery => ({
      datasetId: data.ids.ds,
      userId: null,
      text: null,
      vector: null,
      sort: [],
      offset: 0,
      limit: 500,
      filters,
    });
    const bySource = q([{ type: "terms", scope: md("source"), values: ["blog", "news"] }]);
    expect(await metadata.search(bySource)).toEqual(await sql.search(bySource));
    await insertRecords(30); // the dataset's columns now end before the newest records
    const byQuality = q([{ type: "range", scope: md("quality"), ge: 0.3, le: null }]);
    expect(await metadata.search(byQuality)).toEqual(await sql.search(byQuality));
    await insertRecords(10);
    const both = q([
      { type: "terms", scope: md("source"), values: ["blog"] },
      { type: "range", scope: md("quality"), ge: 0.3, le: 0.9 },
    ]);
    const got = await metadata.search(both);
    expect(got).not.toBeNull(); // answered from the columns: none became unusable through a value read twice
    expect(got).toEqual(await sql.search(both));
    expect(metadata.steppedLoads.done).toBe(2);
  });

  it("follows writes where that is incremental: loaded columns at the current version, or a small dataset", async () => {
    const q: SearchQuery = {
      datasetId: data.ids.ds,
      userId: null,
      text: null,
      vector: null,
      sort: [],
      offset: 0,
      limit: 500,
      filters: [{ type: "terms", scope: md("source"), values: ["web"] }],
    };
    // 400+ records, steps of 50: not loaded, so not loaded by a follow-up.
    const large = new SqliteMetadata(store.db, undefined, { loadStep: 50 });
    expect(await large.follow(data.ids.ds, ["source"])).toBe(false);
    expect(large.loadedColumns(data.ids.ds)).toEqual({});
    // Steps of 10,000: small, loaded.
    const small = new SqliteMetadata(store.db, undefined, { loadStep: 10_000 });
    expect(await small.follow(data.ids.ds, ["source"])).toBe(true);
    expect(small.loadedColumns(data.ids.ds)).toEqual({ source: true });
    // Loaded by a search: followed after new records, and answers as SQL does.
    expect(await large.search(q)).toEqual(await sql.search(q));
    await insertRecords(20);
    expect(await large.follow(data.ids.ds, ["source"])).toBe(true);
    expect(await large.search(q)).toEqual(await sql.search(q));
    // A metadata update moves the dataset's version: a reload, left to the search or the warm-up.
    const one = (await store.db.selectFrom("records").select("id").where("dataset_id", "=", data.ids.ds).executeTakeFirstOrThrow()).id;
    await store.db.updateTable("records").set({ metadata: '{"source":"web"}' }).where("id", "=", one).execute();
    expect(await large.follow(data.ids.ds, ["source"])).toBe(false);
    expect(await large.search(q)).toEqual(await sql.search(q));
  });

  it("stays exact when records are added, metadata updated, records deleted and answered", async () => {
    const source = (value: string): SearchQuery => ({
      datasetId: data.ids.ds,
      userId: data.ids.u1,
      text: null,
      vector: null,
      sort: [],
      offset: 0,
      limit: 500,
      filters: [
        { type: "terms", scope: md("source"), values: [value] },
        { type: "terms", scope: { entity: "response_status" }, values: ["pending"] },
      ],
    });
    const before = await columns.search(source("blog"));
    expect(await direct.search(source("blog"))).toEqual(before);
    expect(await fromRecords.search(source("blog"))).toEqual(before);
    expect(before.total).toBeGreaterThan(0);

    // A new record appears in hits and total.
    const added = randomUUID();
    await store.db
      .insertInto("records")
      .values({
        id: added,
        dataset_id: data.ids.ds,
        external_id: "added",
        fields: "{}",
        metadata: '{"source":"blog"}',
        status: "pending",
        inserted_at: ts,
        updated_at: ts,
      })
      .execute();
    const afterInsert = await columns.search(source("blog"));
    expect(afterInsert.total).toBe(before.total + 1);
    expect(afterInsert.hits.map((h) => h.recordId)).toContain(added);

    // A metadata update moves a record out of the count.
    const moved = before.hits[0]!.recordId;
    await store.db.updateTable("records").set({ metadata: '{"source":"news"}' }).where("id", "=", moved).execute();
    const afterUpdate = await columns.search(source("blog"));
    expect(afterUpdate.total).toBe(before.total);
    expect(afterUpdate.hits.map((h) => h.recordId)).not.toContain(moved);

    // A deleted record disappears.
    const deleted = before.hits[1]!.recordId;
    await store.db.deleteFrom("records").where("id", "=", deleted).execute();
    const afterDelete = await columns.search(source("blog"));
    expect(afterDelete.total).toBe(before.total - 1);
    expect(afterDelete.hits.map((h) => h.recordId)).not.toContain(deleted);

    // A response takes a record out of the user's pending total.
    const answered = before.hits[2]!.recordId;
    await addResponses(store.db, [answered], data.ids.u1);
    const afterAnswer = await columns.search(source("blog"));
    expect(afterAnswer.total).toBe(before.total - 2);
    expect(afterAnswer.hits.map((h) => h.recordId)).not.toContain(answered);
    expect(afterAnswer).toEqual(await sql.search(source("blog")));

    // And more of everything, still equal to SQL.
    await insertRecords(100);
    const some = await store.db.selectFrom("records").select("id").where("dataset_id", "=", data.ids.ds).limit(20).execute();
    for (const r of some.slice(0, 10))
      await store.db
        .updateTable("records")
        .set({ metadata: JSON.stringify(metadataOf()) })
        .where("id", "=", r.id)
        .execute();
    await store.db
      .deleteFrom("records")
      .where(
        "id",
        "in",
        some.slice(10).map((r) => r.id),
      )
      .execute();
    await answer(data.ids.u1, 20);
    await compare(60);
  });

  it("walks the records once per combination of metadata filters, then only the records added since", async () => {
    const metadata = new SqliteMetadata(store.db);
    const q = (value: string, userId: string | null): SearchQuery => ({
      datasetId: data.ids.ds,
      userId,
      text: null,
      vector: null,
      sort: [],
      offset: 0,
      limit: 10,
      filters: [
        { type: "terms", scope: md("source"), values: [value] },
        { type: "range", scope: md("n"), ge: 2, le: 8 },
        { type: "terms", scope: { entity: "response_status" }, values: ["pending"] },
        { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
      ],
    });
    expect(await metadata.search(q("blog", data.ids.u1))).toEqual(await sql.search(q("blog", data.ids.u1)));
    const once = metadata.walked;
    expect(once).toBeGreaterThan(0);
    expect(metadata.matchListBytes).toBeGreaterThan(0);
    // Another annotator, the same filters: the list is reused, the caller's answers applied to it.
    expect(await metadata.search(q("blog", data.ids.u2))).toEqual(await sql.search(q("blog", data.ids.u2)));
    expect(metadata.walked).toBe(once);
    // Other filters: a walk of their own.
    expect(await metadata.search(q("news", data.ids.u2))).toEqual(await sql.search(q("news", data.ids.u2)));
    expect(metadata.walked).toBe(2 * once);
    // New records: only the seqs above the list's end are walked (they may include another dataset's).
    const top = (await store.db
      .selectFrom("records")
      .select((eb) => eb.fn.max("seq").as("m"))
      .executeTakeFirst())!.m as number;
    await insertRecords(5);
    expect(await metadata.search(q("blog", data.ids.u1))).toEqual(await sql.search(q("blog", data.ids.u1)));
    expect(metadata.walked - 2 * once).toBeGreaterThan(0);
    expect(metadata.walked - 2 * once).toBeLessThanOrEqual(Math.max(5, top + 5 - once));
    expect(metadata.walked - 2 * once).toBeLessThan(once);
  });

  it("keeps the metadata of a dataset within its memory budget", async () => {
    const small = new SqliteMetadata(store.db, 1);
    const q = (name: string, values: unknown[]): SearchQuery => ({
      datasetId: data.ids.ds,
      userId: null,
      text: null,
      vector: null,
      sort: [],
      offset: 0,
      limit: 10,
      filters: [{ type: "terms", scope: md(name), values }],
    });
    await columns.search(q("n", [1])); // record_metadata caught up
    expect(await small.search(q("source", ["blog"]))).toEqual(await sql.search(q("source", ["blog"])));
    const one = small.memoryBytes;
    expect(await small.search(q("n", [1]))).toEqual(await sql.search(q("n", [1])));
    // Only the column of the last query is kept.
    expect(small.memoryBytes).toBeLessThanOrEqual(Math.max(one, 8 * 2048 + 1024));
    expect(await small.search(q("source", ["blog"]))).toEqual(await sql.search(q("source", ["blog"])));
  });
});
