import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { rawSqliteOf, type Store } from "../db/database.js";
import { encodeVector } from "../records/read.js";
import type { SearchQuery, SearchResult } from "./search-port.js";
import { FAR_CANCEL, type FarSideJob } from "./knn-ivf.js";
import { searchPortSuite } from "./search-port.suite.js";
import { type KnnOptions, SqliteKnn } from "./sqlite-knn.js";
import { SqliteSearch } from "./sqlite-search.js";
import { seededRandom } from "../testing/random.js";
import { asStored, cosine, exactTop } from "@tessera/test-harness";
import { type ReadStatement, readStatementSql } from "./read-statements.js";
import { readPoolFor } from "./sqlite-read-pool.js";
import { filterSql } from "./sqlite-sql.js";
import { addResponses } from "../testing/responses.js";
import { openTempStore } from "../testing/temp-store.js";
import { searchOffOptions } from "./search-off.js";

const openTemp = (options: { readThreads?: number } = {}): Promise<Store> => openTempStore("tessera-knn-", options);

// The contract suite with every similarity search on the approximate path (binary codes, rescoring):
// on its few records the candidates cover the whole setting, so the answers are the exact ones.
searchPortSuite("SQLite, similarity through the binary codes", async () => {
  const store = await openTemp();
  const port = new SqliteSearch(store.db);
  Object.assign(port, { knn: new SqliteKnn(store.db, { exactBelow: 0, oversample: 1 }) });
  return { store, port };
});

// The same with an inverted file over the codes (knn-ivf.ts) built before each search: the lists, the
// rows added or changed since the build (its tail) and the filters give the exact answers here too.
searchPortSuite("SQLite, similarity through the codes' index", async () => {
  const store = await openTemp();
  const port = new SqliteSearch(store.db);
  Object.assign(port, { knn: new SqliteKnn(store.db, { exactBelow: 0, oversample: 1, indexAbove: 0, indexWhenSearched: true }) });
  return { store, port };
});

const ts = "2024-01-01T00:00:00";

/** A user, a workspace, a dataset and a vector setting of `dimensions`. */
async function seedDataset(store: Store, dimensions: number): Promise<{ ds: string; emb: string; user: string }> {
  const ids = { ds: randomUUID(), emb: randomUUID(), user: randomUUID() };
  const ws = randomUUID();
  await store.db
    .insertInto("users")
    .values({
      id: ids.user,
      username: "u",
      first_name: "U",
      last_name: null,
      role: "annotator",
      password_hash: "x",
      api_key: "k",
      inserted_at: ts,
      updated_at: ts,
    })
    .execute();
  await store.db.insertInto("workspaces").values({ id: ws, name: "ws", inserted_at: ts, updated_at: ts }).execute();
  await store.db
    .insertInto("datasets")
    .values({
      id: ids.ds,
      name: "ds",
      guidelines: null,
      allow_extra_metadata: 1,
      status: "ready",
      distribution: '{"strategy":"overlap","min_submitted":1}',
      metadata: null,
      workspace_id: ws,
      inserted_at: ts,
      updated_at: ts,
      last_activity_at: ts,
    })
    .execute();
  await store.db
    .insertInto("vectors_settings")
    .values({ id: ids.emb, dataset_id: ids.ds, name: "emb", title: "Emb", dimensions, inserted_at: ts, updated_at: ts })
    .execute();
  return ids;
}

// 16: codes by vec_quantize_binary; 12: quantised in JS; both one 32-bit word per code (distances by
// table). 64: two words, so the distances come from the WebAssembly popcount (search/hamming.ts).
for (const dimensions of [16, 12, 64]) {
  describe(`similarity on the approximate path (${dimensions} dimensions)`, () => {
    let store: Store;
    let ids: { ds: string; emb: string; user: string };
    const records: { id: string; vector: number[]; cluster: number }[] = [];
    const random = seededRandom(dimensions);
    // 6 clusters of 50 whose centroids differ in sign on at least 4 dimensions (3 is the opposite of 2),
    // small noise: the 64 codes nearest to a cluster's vector hold the whole cluster.
    const signs = [0x0f0f, 0xf0f0, 0x3333, 0xcccc, 0x5555, 0xaaaa];
    const centroids = signs.map((bits, c) =>
      Array.from({ length: dimensions }, (_, d) => ((bits >> (d % 16)) & 1 ? 1 : -1) * (1 + ((c + d) % 3))),
    );
    const near = (c: number) => centroids[c]!.map((x) => x + (random() - 0.5) * 0.4);

    async function addRecord(vector: number[] | null, cluster: number): Promise<string> {
      const id = randomUUID();
      await store.db
        .insertInto("records")
        .values({
          id,
          dataset_id: ids.ds,
          external_id: id,
          fields: "{}",
          metadata: JSON.stringify({ cluster: `c${cluster}` }),
          status: "pending",
          inserted_at: ts,
          updated_at: ts,
        })
        .execute();
      if (vector)
        await store.db
          .insertInto("record_vectors")
          .values({ vector_settings_id: ids.emb, record_id: id, vector: encodeVector(vector) })
          .execute();
      records.push({ id, vector: vector ?? [], cluster });
      return id;
    }

    beforeEach(async () => {
      store = await openTemp();
      records.length = 0;
      ids = await seedDataset(store, dimensions);
      for (let c = 0; c < 6; c++) for (let i = 0; i < 50; i++) await addRecord(near(c), c);
    });
    afterEach(async () => {
      await store.close();
    });

    const query = (
      vector: number[],
      q: Partial<SearchQuery> = {},
      order: "most_similar" | "least_similar" = "most_similar",
    ): SearchQuery => ({
      datasetId: ids.ds,
      userId: ids.user,
      text: null,
      vector: { settingsId: ids.emb, value: vector, order, excludeRecordId: null },
      filters: [],
      sort: [],
      offset: 0,
      limit: 5,
      ...q,
    });
    const approximate = () => new SqliteKnn(store.db, { exactBelow: 0, oversample: 1 });
    const exact = () => new SqliteKnn(store.db, { exactBelow: Number.MAX_SAFE_INTEGER });
    /** The top `limit` by cosine similarity computed here (float32 vectors, as stored). */
    const bruteForce = (vector: number[], limit: number, keep: (r: (typeof records)[number]) => boolean = () => true, order: 1 | -1 = 1) =>
      exactTop(
        vector,
        records.filter((r) => r.vector.length > 0 && keep(r)).map((r) => [r.id, r.vector] as const),
        limit,
        { order, stored: true },
      );
    const hitIds = async (knn: SqliteKnn, q: SearchQuery) => (await knn.knnSearch(q))!.hits.map((h) => h.recordId);

    it("says what its codes hold in memory: nothing before a search, then at least a code and a rowid per vector", async () => {
      const knn = approximate();
      expect(knn.memoryBytes).toBe(0);
      await knn.knnSearch(query(near(0)));
      const vectors = records.filter((r) => r.vector.length > 0).length;
      expect(knn.memoryBytes).toBeGreaterThanOrEqual(vectors * (Math.ceil(records[0]!.vector.length / 32) * 4 + 8));
    });

    it("finds the nearest records from fewer candidates than the setting holds, with exact scores", async () => {
      for (const c of [0, 3, 5]) {
        const v = near(c);
        const result = (await approximate().knnSearch(query(v)))!;
        expect(result.hits.map((h) => h.recordId)).toEqual(bruteForce(v, 5));
        expect(result.hits.every((h) => records.find((r) => r.id === h.recordId)!.cluster === c)).toBe(true);
        expect(result.hits.map((h) => h.score)).toEqual((await exact().knnSearch(query(v)))!.hits.map((h) => h.score));
      }
    });

    it("least_similar ranks the farthest records first", async () => {
      const v = near(2);
      expect(await hitIds(approximate(), query(v, {}, "least_similar"))).toEqual(bruteForce(v, 5, () => true, -1));
    });

    it("applies the filters, taking more candidates while they reject too many", async () => {
      const v = near(1);
      const answered = bruteForce(v, 3);
      await addResponses(store.db, answered, ids.user);
      const pending = query(v, { filters: [{ type: "terms", scope: { entity: "response_status" }, values: ["pending"] }] });
      expect(await hitIds(approximate(), pending)).toEqual(bruteForce(v, 5, (r) => !answered.includes(r.id)));
      // Only records of a far cluster pass: none among the first candidates.
      const far = records
        .filter((r) => r.cluster === 4)
        .slice(0, 7)
        .map((r) => r.id);
      const onlyFar = query(v, { filters: [{ type: "terms", scope: { entity: "record", property: "id" }, values: far }] });
      expect(await hitIds(approximate(), onlyFar)).toEqual(bruteForce(v, 5, (r) => far.includes(r.id)));
    });

    it("applies the queue's filters to the candidates: completed, moved to another dataset, answered, kept exact after changes", async () => {
      const v = near(1);
      const queue: SearchQuery["filters"] = [
        { type: "terms", scope: { entity: "response_status" }, values: ["pending"] },
        { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
      ];
      const knn = approximate();
      const q = query(v, { filters: queue, limit: 8 });
      expect(await hitIds(knn, q)).toEqual(bruteForce(v, 8));
      // After the statuses were loaded: the nearest completed, the next moved to another dataset, the third answered.
      const [completed, moved, answered] = bruteForce(v, 3) as [string, string, string];
      await store.db.updateTable("records").set({ status: "completed" }).where("id", "=", completed).execute();
      const { workspace_id } = await store.db
        .selectFrom("datasets")
        .select("workspace_id")
        .where("id", "=", ids.ds)
        .executeTakeFirstOrThrow();
      const other = randomUUID();
      await store.db
        .insertInto("datasets")
        .values({
          id: other,
          name: "other",
          guidelines: null,
          allow_extra_metadata: 1,
          status: "ready",
          distribution: '{"strategy":"overlap","min_submitted":1}',
          metadata: null,
          workspace_id,
          inserted_at: ts,
          updated_at: ts,
          last_activity_at: ts,
        })
        .execute();
      await store.db.updateTable("records").set({ dataset_id: other }).where("id", "=", moved).execute();
      await addResponses(store.db, [answered], ids.user, "draft");
      const left = (r: (typeof records)[number]) => ![completed, moved, answered].includes(r.id);
      expect(await hitIds(knn, q)).toEqual(bruteForce(v, 8, left));
      // With another record filter, which every record passes: the same.
      const everyRecord = {
        type: "terms" as const,
        scope: { entity: "record" as const, property: "id" as const },
        values: records.map((r) => r.id),
      };
      expect(await hitIds(knn, { ...q, filters: [...queue, everyRecord] })).toEqual(bruteForce(v, 8, left));
      // Completed records asked for: only the completed one (the moved one is no longer the dataset's).
      const done = query(v, { filters: [{ type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] }] });
      expect(await hitIds(knn, done)).toEqual([completed]);
    });

    it("TESSERA_SEARCH_OFF=similarity-index: no inverted file is built, every code is scored, the same pages", async () => {
      const indexed = new SqliteKnn(store.db, { exactBelow: 0, oversample: 1, indexAbove: 0, indexWhenSearched: true });
      const off = new SqliteKnn(store.db, {
        exactBelow: 0,
        oversample: 1,
        indexAbove: 0,
        indexWhenSearched: true,
        ...searchOffOptions(["similarity-index"]).knn,
      });
      const vectors = records.filter((r) => r.vector.length > 0).length;
      for (const [c, order] of [
        [0, "most_similar"],
        [5, "least_similar"],
      ] as const) {
        const q = query(near(c), { limit: 10 }, order);
        const scoredBefore = off.codesScored;
        expect(await hitIds(off, q)).toEqual(bruteForce(q.vector!.value, 10, () => true, order === "most_similar" ? 1 : -1));
        expect(off.codesScored - scoredBefore).toBe(vectors);
        expect(await off.knnSearch(q)).toEqual(await indexed.knnSearch(q));
      }
      expect(indexed.indexesBuilt).toBeGreaterThan(0);
      expect(off.indexesBuilt).toBe(0);
      expect(off.indexBytes).toBe(0);
    });

    it("reads the candidates on the store's read threads, with the answers of the request thread's connection", async () => {
      const onThread = new SqliteKnn(store.db, { exactBelow: 0, oversample: 1, offThread: false });
      const offThread = approximate();
      const pending = [{ type: "terms" as const, scope: { entity: "response_status" as const }, values: ["pending"] }];
      for (const [c, order] of [
        [0, "most_similar"],
        [3, "least_similar"],
      ] as const) {
        const q = query(near(c), { filters: pending, limit: 10 }, order);
        const there = (await offThread.knnSearch(q))!;
        expect(there.hits.map((h) => h.recordId)).toEqual(bruteForce(q.vector!.value, 10, () => true, order === "most_similar" ? 1 : -1));
        expect(there).toEqual(await onThread.knnSearch(q));
      }
      // Other filters (not the queue's): the candidates' distances, then their records filtered, each a named statement there.
      const some = records.filter((_, i) => i % 3 === 0);
      const byId = [
        { type: "terms" as const, scope: { entity: "record" as const, property: "id" as const }, values: some.map((r) => r.id) },
      ];
      const before = offThread.readOffThread;
      const q = query(near(4), { filters: byId, limit: 10 }, "least_similar");
      const there = (await offThread.knnSearch(q))!;
      expect(there.hits.map((h) => h.recordId)).toEqual(bruteForce(q.vector!.value, 10, (r) => some.includes(r), -1));
      expect(there).toEqual(await onThread.knnSearch(q));
      expect(offThread.readOffThread - before).toBeGreaterThanOrEqual(2);
      expect(offThread.readOffThread).toBeGreaterThan(0);
      expect(onThread.readOffThread).toBe(0);
    });

    it("runs only named statements on the read threads: an unknown name is refused, there and here", async () => {
      const pool = readPoolFor(store.db)!;
      const count = () =>
        store.db
          .selectFrom("records")
          .select((e) => e.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow();
      const before = await count();
      for (const name of ["DELETE FROM records", "candidateDistance", ""]) {
        const statement = { name, vrows: [1], settingsId: ids.emb } as unknown as ReadStatement;
        await expect(pool.rows(statement)).rejects.toThrow(`unknown read statement: ${name}`);
        expect(() => readStatementSql(statement, filterSql)).toThrow(`unknown read statement: ${name}`);
      }
      expect(await count()).toEqual(before);
      // A known one answers there as here.
      const raw = rawSqliteOf(store.db)!;
      const vrows = raw.prepare("SELECT rowid FROM record_vectors ORDER BY rowid LIMIT 3").pluck().all() as number[];
      expect(vrows).toHaveLength(3);
      const known: ReadStatement = { name: "candidateDistances", vector: encodeVector(near(1)), vrows, settingsId: ids.emb };
      const { sql, params } = readStatementSql(known, filterSql);
      const here = raw.prepare(sql).all(...params);
      expect(here).toHaveLength(3);
      expect(await pool.rows(known)).toEqual(here);
    });

    it("keeps the seq order of equal scores when it filters the candidates a slice at a time (duplicate vectors)", async () => {
      const w = near(2).map((x) => x * 3);
      const duplicates: string[] = [];
      for (let i = 0; i < 40; i++) duplicates.push(await addRecord(w, 2));
      // The first ten get new vector rowids: rowid order (the candidates' order) no longer follows seq.
      for (const id of duplicates.slice(0, 10)) {
        await store.db.deleteFrom("record_vectors").where("record_id", "=", id).execute();
        await store.db
          .insertInto("record_vectors")
          .values({ vector_settings_id: ids.emb, record_id: id, vector: encodeVector(w) })
          .execute();
      }
      await addResponses(store.db, duplicates.slice(0, 3), ids.user);
      const pending = query(w, { filters: [{ type: "terms", scope: { entity: "response_status" }, values: ["pending"] }] });
      // Every record a candidate (the codes' own cut resolves its ties by rowid): what is tested is the rescoring.
      const wide = () => new SqliteKnn(store.db, { exactBelow: 0, oversample: 10 });
      expect(await hitIds(wide(), pending)).toEqual(duplicates.slice(3, 8));
      expect(await hitIds(wide(), pending)).toEqual(await hitIds(exact(), pending));
      const many = { ...pending, limit: 45 };
      expect(await hitIds(wide(), many)).toEqual(await hitIds(exact(), many));
    });

    it("follows writes: loads a small setting's codes, leaves a large unloaded one to its first search, then follows it", async () => {
      const small = new SqliteKnn(store.db, { exactBelow: 0, oversample: 1, followLoadMax: 1000 });
      await small.follow(ids.ds);
      expect(small.followed).toBe(1);
      const large = new SqliteKnn(store.db, { exactBelow: 0, oversample: 1, followLoadMax: 100 }); // 300 vectors
      await large.follow(ids.ds);
      await large.follow(ids.ds);
      expect(large.followed).toBe(0);
      const v = near(0);
      expect(await hitIds(large, query(v))).toEqual(bruteForce(v, 5)); // the first search loads them
      const added = await addRecord(
        v.map((x) => x * 2),
        0,
      );
      await large.follow(ids.ds);
      expect(large.followed).toBe(1);
      expect(await hitIds(large, query(v))).toContain(added);
    });

    it("follows new, updated and deleted vectors and deleted records", async () => {
      const knn = approximate();
      const v = near(0);
      const first = await hitIds(knn, query(v));
      // A record of another cluster moved onto the query vector.
      const moved = records.find((r) => r.cluster === 5)!;
      await store.db
        .updateTable("record_vectors")
        .set({ vector: encodeVector(v) })
        .where("record_id", "=", moved.id)
        .execute();
      moved.vector = v;
      expect((await hitIds(knn, query(v)))[0]).toBe(moved.id);
      // A new record; then its vector deleted.
      const added = await addRecord(
        v.map((x) => x * 2),
        0,
      );
      expect((await hitIds(knn, query(v))).slice(0, 2).sort()).toEqual([moved.id, added].sort());
      await store.db.deleteFrom("record_vectors").where("record_id", "=", added).execute();
      records.find((r) => r.id === added)!.vector = [];
      expect(await hitIds(knn, query(v))).toEqual(bruteForce(v, 5));
      // The record deleted (its vector by cascade).
      await store.db.deleteFrom("records").where("id", "=", first[0]!).execute();
      records.splice(
        records.findIndex((r) => r.id === first[0]),
        1,
      );
      expect(await hitIds(knn, query(v))).toEqual(bruteForce(v, 5));
      expect(await hitIds(knn, query(v))).not.toContain(first[0]);
    });

    it("sees an insert that reuses the rowid of a deleted vector", async () => {
      const knn = approximate();
      const v = near(3);
      await hitIds(knn, query(v));
      // SQLite gives max(rowid) + 1 to the next row: deleting the last vector frees its rowid.
      const last = records[records.length - 1]!;
      await store.db.deleteFrom("record_vectors").where("record_id", "=", last.id).execute();
      last.vector = [];
      await hitIds(knn, query(v));
      const added = await addRecord(v, 3);
      expect((await hitIds(knn, query(v)))[0]).toBe(added);
    });

    it("reloads when the change log was pruned past it", async () => {
      const knn = approximate();
      const v = near(4);
      await hitIds(knn, query(v));
      const moved = records.find((r) => r.cluster === 1)!;
      await store.db
        .updateTable("record_vectors")
        .set({ vector: encodeVector(v) })
        .where("record_id", "=", moved.id)
        .execute();
      await store.db.deleteFrom("record_vectors_knn_changes" as never).execute();
      expect((await hitIds(knn, query(v)))[0]).toBe(moved.id);
    });

    it("is exact up to the threshold", async () => {
      const knn = new SqliteKnn(store.db, { exactBelow: 300 });
      for (const c of [0, 2]) {
        const v = near(c).map((x, d) => x + (d % 2 ? 3 : -3)); // between clusters
        expect(await hitIds(knn, query(v, { limit: 20 }))).toEqual(bruteForce(v, 20));
        expect(await hitIds(knn, query(v, { limit: 20 }, "least_similar"))).toEqual(bruteForce(v, 20, () => true, -1));
      }
    });

    it("returns null for an unknown vector setting", async () => {
      expect(
        await approximate().knnSearch({
          ...query(near(0)),
          vector: { settingsId: randomUUID(), value: near(0), order: "most_similar", excludeRecordId: null },
        }),
      ).toBeNull();
    });
  });
}

// The inverted file over the codes on 4,000 vectors of 64 dimensions in 40 clusters around a shared
// direction (as sentence embeddings are): searches score a few lists instead of every code.
describe("similarity through the codes' index (knn-ivf.ts)", () => {
  const dimensions = 64;
  let store: Store;
  let ids: { ds: string; emb: string; user: string };
  let vectors: Map<string, number[]>;
  const random = seededRandom(25);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const shared = Array.from({ length: dimensions }, () => normal() * 0.5);
  const centres = Array.from({ length: 40 }, () => Array.from({ length: dimensions }, (_, d) => shared[d]! + normal()));
  const near = (c: number, noise = 0.6) => centres[c]!.map((x) => x + normal() * noise);
  const seeded = Array.from({ length: 4000 }, (_, i) => near(i % 40));

  async function insert(rows: number[][]): Promise<string[]> {
    const made = rows.map((vector) => ({ id: randomUUID(), vector }));
    for (let at = 0; at < made.length; at += 500) {
      const batch = made.slice(at, at + 500);
      await store.db
        .insertInto("records")
        .values(
          batch.map(({ id }) => ({
            id,
            dataset_id: ids.ds,
            external_id: id,
            fields: "{}",
            metadata: null,
            status: "pending" as const,
            inserted_at: ts,
            updated_at: ts,
          })),
        )
        .execute();
      await store.db
        .insertInto("record_vectors")
        .values(batch.map(({ id, vector }) => ({ vector_settings_id: ids.emb, record_id: id, vector: encodeVector(vector) })))
        .execute();
    }
    for (const { id, vector } of made) vectors.set(id, vector);
    return made.map((m) => m.id);
  }

  beforeEach(async () => {
    store = await openTemp();
    ids = await seedDataset(store, dimensions);
    vectors = new Map();
    await insert(seeded);
  });
  afterEach(async () => {
    await store.close();
  });

  const indexed = (options: KnnOptions = {}) =>
    new SqliteKnn(store.db, {
      exactBelow: 0,
      oversample: 2,
      indexAbove: 0,
      probeFraction: 0.05,
      farOversample: 2,
      settleMs: 0,
      ...options,
    });
  const query = (value: number[], order: "most_similar" | "least_similar" = "most_similar", q: Partial<SearchQuery> = {}): SearchQuery => ({
    datasetId: ids.ds,
    userId: ids.user,
    text: null,
    vector: { settingsId: ids.emb, value, order, excludeRecordId: null },
    filters: [],
    sort: [],
    offset: 0,
    limit: 20,
    ...q,
  });
  /** The exact top `limit` by cosine similarity (float32, as stored), highest first (lowest for least_similar). */
  const exactTopOf = (value: number[], limit: number, order: 1 | -1 = 1, keep: (id: string) => boolean = () => true) =>
    exactTop(
      value,
      [...vectors.entries()].filter(([id]) => keep(id)),
      limit,
      { order, stored: true },
    );
  const hitIds = async (knn: SqliteKnn, q: SearchQuery) => (await knn.knnSearch(q))!.hits.map((h) => h.recordId);
  const cosineTo = (value: number[], id: string) => cosine(asStored(value), vectors.get(id)!);
  /**
   * Over 20 queries near random clusters, against the exact answer: mean recall@20, the codes scored
   * per search, and how much worse the answer is in cosine (least similar: higher is worse), its 20th
   * and its mean against the exact 20th and mean (on a flat far side recall alone misleads).
   */
  const recall = async (knn: SqliteKnn, order: "most_similar" | "least_similar") => {
    const before = knn.codesScored;
    const sign = order === "most_similar" ? -1 : 1;
    let found = 0,
      lastGap = 0,
      meanGap = 0;
    for (let i = 0; i < 20; i++) {
      const value = near(Math.floor(random() * 40), 0.8);
      const exact = exactTopOf(value, 20, sign === 1 ? -1 : 1);
      const hits = await hitIds(knn, query(value, order));
      const got = new Set(hits);
      found += exact.filter((id) => got.has(id)).length;
      const mean = (ids: string[]) => ids.reduce((t, id) => t + cosineTo(value, id), 0) / ids.length;
      lastGap += (sign * (cosineTo(value, hits[19]!) - cosineTo(value, exact[19]!))) / 20;
      meanGap += (sign * (mean(hits) - mean(exact))) / 20;
    }
    return { recall: found / 400, scoredPerSearch: (knn.codesScored - before) / 20, lastGap, meanGap };
  };

  it("builds an index from the codes and finds the most similar from a few of its lists: recall@20 ≥ 0.95", async () => {
    const knn = indexed();
    expect(knn.indexState(ids.emb)).toBeNull();
    expect(knn.indexBytes).toBe(0);
    expect(await knn.buildIndex(ids.emb)).toBe(true);
    expect(knn.indexState(ids.emb)).toEqual({ indexed: 4000, tail: 0 });
    // The codes again, list by list, with their rowids, positions and the lists' mean codes.
    expect(knn.indexBytes).toBeGreaterThan(4000 * (8 + 8 + 8 + 4));
    // least_similar's estimator apart: a code around its list's centroid and a scale per vector,
    // computed on the store's read threads beside the assignment of the codes.
    expect(knn.farSideBytes).toBeGreaterThanOrEqual(4000 * (8 + 4));
    expect(knn.farSidesOnThreads).toBe(1);
    const linear = indexed({ indexAbove: Number.MAX_SAFE_INTEGER });
    const most = await recall(knn, "most_similar");
    expect(most.recall).toBeGreaterThanOrEqual(0.95);
    expect(most.scoredPerSearch).toBeLessThan(4000 / 4);
    // Least similar from the lists whose centroid is least similar to the query, by the far side's
    // estimate (knn-ivf.ts, FarSide): as good as the scan of every code, and nearly the exact answer.
    const least = await recall(knn, "least_similar");
    expect(least.scoredPerSearch).toBeLessThan(4000 / 4);
    expect(least.recall).toBeGreaterThanOrEqual(0.85);
    expect(least.lastGap).toBeLessThan(0.01);
    expect(least.meanGap).toBeLessThan(0.005);
    // Without the index every search scores every code.
    expect((await recall(linear, "most_similar")).scoredPerSearch).toBe(4000);
    const scanned = await recall(linear, "least_similar");
    expect(scanned.scoredPerSearch).toBe(4000);
    expect(least.recall).toBeGreaterThanOrEqual(scanned.recall - 0.05);
  });

  it("builds least_similar's far side on the request thread without read threads: as good as the threads'", async () => {
    await store.close();
    store = await openTemp({ readThreads: 0 });
    ids = await seedDataset(store, dimensions);
    vectors = new Map();
    await insert(seeded);
    const knn = indexed();
    expect(await knn.buildIndex(ids.emb)).toBe(true);
    expect(knn.farSidesOnThreads).toBe(0);
    expect(knn.farSideBytes).toBeGreaterThanOrEqual(4000 * (8 + 4));
    // The bounds of the threads' far side (above).
    const least = await recall(knn, "least_similar");
    expect(least.scoredPerSearch).toBeLessThan(4000 / 4);
    expect(least.recall).toBeGreaterThanOrEqual(0.85);
    expect(least.lastGap).toBeLessThan(0.01);
    expect(least.meanGap).toBeLessThan(0.005);
  });

  it("a team completed the dataset's first 60%: least/most similar pages with the queue's filters equal the request thread's path, with the read threads idle or held by other jobs", async () => {
    // The first 2,400 records completed; another user answered every 5th of the rest, u answered every 7th (drafts every 11th).
    const recordIds = [...vectors.keys()];
    await store.db.updateTable("records").set({ status: "completed" }).where("id", "in", recordIds.slice(0, 2400)).execute();
    const rest = recordIds.slice(2400);
    const other = randomUUID();
    await store.db
      .insertInto("users")
      .values({ ...(await store.db.selectFrom("users").selectAll().executeTakeFirstOrThrow()), id: other, username: "v", api_key: "k2" })
      .execute();
    await addResponses(
      store.db,
      rest.filter((_, i) => i % 5 === 0),
      other,
    );
    await addResponses(
      store.db,
      rest.filter((_, i) => i % 7 === 0),
      ids.user,
    );
    await addResponses(
      store.db,
      rest.filter((_, i) => i % 11 === 0 && i % 7 !== 0),
      ids.user,
      "draft",
    );
    const queue: SearchQuery["filters"] = [
      { type: "terms", scope: { entity: "response_status" }, values: ["pending"] },
      { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
    ];
    const answered = new Set(rest.filter((_, i) => i % 7 === 0 || i % 11 === 0));
    const inQueue = (id: string) => rest.includes(id) && !answered.has(id);
    const plain = indexed({ offThread: false });
    const pooled = indexed();
    expect(await plain.buildIndex(ids.emb)).toBe(true);
    expect(await pooled.buildIndex(ids.emb)).toBe(true);
    const queries = [2, 17, 33].flatMap((c) => {
      const value = near(c, 0.8);
      return (["most_similar", "least_similar"] as const).map((order) => query(value, order, { filters: queue, limit: 30 }));
    });
    const pages = async (knn: SqliteKnn) => {
      const out: SearchResult[] = [];
      for (const q of queries) out.push((await knn.knnSearch(q))!);
      return out;
    };
    const expected = await pages(plain);
    for (const page of expected) {
      expect(page.hits).toHaveLength(30);
      expect(page.hits.every((h) => inQueue(h.recordId))).toBe(true);
    }
    // Read threads idle: least_similar's lists scanned and its candidates read there.
    const pool = readPoolFor(store.db)!;
    expect(await pages(pooled)).toEqual(expected);
    expect(pooled.scannedOffThread).toBe(3);
    expect(pooled.readOffThread).toBeGreaterThanOrEqual(6);
    // Every read thread held (a far side's part waiting for its centroids, as during a build): least_similar's steps run there between its pauses.
    const state = new Int32Array(new SharedArrayBuffer(16));
    Atomics.store(state, 2, 1);
    const waiting: FarSideJob = {
      settingsId: ids.emb,
      dimensions,
      words: 2,
      lists: 1,
      mean: new Float32Array(dimensions),
      vrows: new Float64Array(new SharedArrayBuffer(8)),
      assigned: new Uint16Array(new SharedArrayBuffer(2)),
      samplePositions: new Uint32Array(0),
      sampleLists: new Uint16Array(0),
      state,
      centroids: new Float32Array(new SharedArrayBuffer(dimensions * 4)),
      codes: new Uint32Array(new SharedArrayBuffer(8)),
      scales: new Float32Array(new SharedArrayBuffer(4)),
      chunk: 1,
    };
    const parts = Array.from({ length: pool.size }, () => pool.farSide(waiting));
    const [scanned, read] = [pooled.scannedOffThread, pooled.readOffThread];
    expect(await pages(pooled)).toEqual(expected);
    expect(pooled.scannedOffThread).toBe(scanned + 3);
    expect(pooled.readOffThread - read).toBeGreaterThanOrEqual(6);
    Atomics.store(state, FAR_CANCEL, 1);
    expect(await Promise.all(parts)).toEqual(parts.map(() => null));
  });

  it("says when a setting's index is built as its codes call for, far side included", async () => {
    const knn = indexed({ indexAbove: 1000, settleMs: 30 });
    await knn.warm(ids.emb);
    expect(knn.indexOf(ids.emb)).toBeNull();
    await knn.indexSettled(ids.emb);
    expect(knn.indexState(ids.emb)).toEqual({ indexed: 4000, tail: 0 });
    expect(knn.indexOf(ids.emb)!.farSide).not.toBeNull();
    // Nothing to build: at once (a small setting, an unknown one).
    const small = indexed({ indexAbove: 10_000 });
    await small.warm(ids.emb);
    await small.indexSettled(ids.emb);
    await small.indexSettled("no-such-setting");
    expect(small.indexOf(ids.emb)).toBeNull();
  });

  it("searches a first index before its far side is in (least_similar scans every code meanwhile); a rebuild keeps the index before until its far side is in", async () => {
    const seen: { indexed: number | null; far: boolean }[] = [];
    const answers: number[] = [];
    let knn: SqliteKnn | null = null;
    let asked: Promise<void> | null = null;
    knn = indexed({
      indexAbove: 1000,
      indexBuild: {
        sliceMs: 0,
        pause: async () => {
          const ivf = knn!.indexOf(ids.emb);
          seen.push({ indexed: ivf?.size ?? null, far: ivf?.farSide != null });
          if (ivf && !ivf.farSide && !asked) {
            asked = (async () => {
              for (const order of ["most_similar", "least_similar"] as const)
                answers.push((await hitIds(knn!, query(near(3), order))).length);
            })();
            await asked;
          }
        },
      },
    });
    await knn.buildIndex(ids.emb);
    // The far side on the read threads does not wait for this hook (it races it): the searches may end after the build.
    await asked;
    expect(seen).toContainEqual({ indexed: 4000, far: false });
    expect(answers).toEqual([20, 20]);
    expect(knn.indexOf(ids.emb)!.farSide).not.toBeNull();
    seen.length = 0;
    await insert(Array.from({ length: 1500 }, (_, i) => near(i % 40)));
    await knn.buildIndex(ids.emb);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.indexed === 4000 && s.far)).toBe(true);
    expect(knn.indexState(ids.emb)).toEqual({ indexed: 5500, tail: 0 });
    expect(knn.indexOf(ids.emb)!.farSide).not.toBeNull();
  });

  it("closes while an index's far side is computed on the read threads: the threads end, the build gives up quietly", async () => {
    let closed: Promise<void> | null = null;
    const knn: SqliteKnn = indexed({
      indexBuild: {
        sliceMs: 0,
        pause: async () => {
          // The first index is in, its far side on the threads: the store closes.
          if (knn.indexOf(ids.emb) && !closed) closed = store.close();
        },
      },
    });
    expect(await knn.buildIndex(ids.emb)).toBe(true);
    expect(closed).not.toBeNull();
    await closed; // the pool's close waits for its threads to exit
    expect(knn.indexOf(ids.emb)!.farSide).toBeNull();
    expect(knn.farSidesOnThreads).toBe(0);
    store = await openTemp(); // for afterEach
  });

  it("builds the index in the background once the codes have settled, and again when many rows changed since", async () => {
    const knn = indexed({ indexAbove: 1000, settleMs: 30 });
    await knn.knnSearch(query(near(0)));
    await expect.poll(() => knn.indexesBuilt, { timeout: 10_000 }).toBe(1);
    expect(knn.indexState(ids.emb)).toEqual({ indexed: 4000, tail: 0 });
    await insert(Array.from({ length: 1500 }, (_, i) => near(i % 40)));
    await knn.knnSearch(query(near(0)));
    expect(knn.indexState(ids.emb)!.tail).toBe(1500);
    await expect.poll(() => knn.indexesBuilt, { timeout: 10_000 }).toBe(2);
    expect(knn.indexState(ids.emb)).toEqual({ indexed: 5500, tail: 0 });
  });

  it("puts the build off while writes are held back (an import waiting for the text indexer), builds once they go on", async () => {
    let held = true;
    const knn = indexed({ indexAbove: 1000, settleMs: 30, writesHeld: () => held });
    await knn.knnSearch(query(seeded[0]!)); // a stored vector: near() would draw from the random numbers the next tests' data take
    await expect.poll(() => knn.buildsPutOff, { timeout: 10_000 }).toBeGreaterThan(1);
    expect(knn.indexesBuilt).toBe(0);
    expect(knn.indexesPending).toBe(1);
    held = false;
    await expect.poll(() => knn.indexesPending, { timeout: 10_000 }).toBe(0);
    expect(knn.indexesBuilt).toBe(1);
    expect(knn.indexState(ids.emb)).toEqual({ indexed: 4000, tail: 0 });
    expect(knn.indexOf(ids.emb)!.farSide).not.toBeNull();
  });

  it("finds vectors added, changed and removed after the build (the index's tail)", async () => {
    const knn = indexed();
    await knn.buildIndex(ids.emb);
    const value = near(7, 0.8);
    // Added: the query vector itself, twice as long.
    const [added] = await insert([value.map((x) => x * 2)]);
    expect((await hitIds(knn, query(value)))[0]).toBe(added);
    // Changed: an indexed record of another cluster moved onto the query.
    const moved = [...vectors.keys()][3]!;
    await store.db
      .updateTable("record_vectors")
      .set({ vector: encodeVector(value) })
      .where("record_id", "=", moved)
      .execute();
    vectors.set(moved, value);
    expect((await hitIds(knn, query(value))).slice(0, 2).sort()).toEqual([added!, moved].sort());
    // The least similar of the old place no longer holds it.
    const away = seeded[3]!;
    expect(await hitIds(knn, query(away, "most_similar", { limit: 60 }))).not.toContain(moved);
    // Removed: an indexed vector and the added one.
    const first = (await hitIds(knn, query(value)))[2]!;
    await store.db.deleteFrom("record_vectors").where("record_id", "in", [first, added!]).execute();
    vectors.delete(first);
    vectors.delete(added!);
    const after = await hitIds(knn, query(value));
    expect(after).not.toContain(first);
    expect(after).not.toContain(added);
    expect(after[0]).toBe(moved);
    expect(knn.indexState(ids.emb)).toEqual({ indexed: 4000, tail: 2 }); // moved, first (added is gone)
    // Rebuilt: the same answers from the index alone.
    await knn.buildIndex(ids.emb);
    expect(knn.indexState(ids.emb)).toEqual({ indexed: 3999, tail: 0 });
    expect(await hitIds(knn, query(value))).toEqual(after);
  });

  it("finds the least similar vectors added, changed and removed after the build (the index's tail)", async () => {
    const knn = indexed();
    await knn.buildIndex(ids.emb);
    const here = indexed({ offThread: false });
    await here.buildIndex(ids.emb);
    const value = near(7, 0.8);
    const before = knn.codesScored;
    // Added: the opposite of the query (cosine -1), twice as long.
    const [added] = await insert([value.map((x) => -2 * x)]);
    const first = (await knn.knnSearch(query(value, "least_similar")))!.hits[0]!;
    expect(first.recordId).toBe(added);
    expect(first.score).toBeCloseTo(-1, 5);
    // Changed: an indexed record moved onto the opposite of the query.
    const moved = [...vectors.keys()][3]!;
    await store.db
      .updateTable("record_vectors")
      .set({ vector: encodeVector(value.map((x) => -x)) })
      .where("record_id", "=", moved)
      .execute();
    vectors.set(
      moved,
      value.map((x) => -x),
    );
    expect((await hitIds(knn, query(value, "least_similar"))).slice(0, 2).sort()).toEqual([added!, moved].sort());
    // Its old place's least similar no longer holds it.
    const old = seeded[3]!.map((x) => -x);
    expect(await hitIds(knn, query(old, "least_similar", { limit: 60 }))).not.toContain(moved);
    // Removed: the added one and the third least similar.
    const third = (await hitIds(knn, query(value, "least_similar")))[2]!;
    await store.db.deleteFrom("record_vectors").where("record_id", "in", [added!, third]).execute();
    vectors.delete(added!);
    vectors.delete(third);
    const after = await hitIds(knn, query(value, "least_similar"));
    expect(after[0]).toBe(moved);
    expect(after).not.toContain(added);
    expect(after).not.toContain(third);
    // Through the index all along: each search scored far fewer than the 4,000 codes, its lists on the store's read threads.
    expect((knn.codesScored - before) / 5).toBeLessThan(4000 / 4);
    expect(knn.scannedOffThread).toBe(5);
    // The same answers with everything on the request thread (the same index, the same changes since).
    for (const q of [query(value, "least_similar"), query(old, "least_similar", { limit: 60 })])
      expect(await here.knnSearch(q)).toEqual(await knn.knnSearch(q));
    expect(here.scannedOffThread).toBe(0);
    const exact = exactTopOf(value, 20, -1);
    expect(after.filter((id) => exact.includes(id)).length).toBeGreaterThanOrEqual(12);
    // Rebuilt (other lists: approximate answers may differ a little): from the index alone.
    await knn.buildIndex(ids.emb);
    expect(knn.indexState(ids.emb)).toEqual({ indexed: 3999, tail: 0 });
    const rebuilt = await hitIds(knn, query(value, "least_similar"));
    expect(rebuilt[0]).toBe(moved);
    expect(rebuilt.filter((id) => exact.includes(id)).length).toBeGreaterThanOrEqual(12);
  });

  it("keeps a vector changed while the index was being built out of its old list", async () => {
    const value = near(11, 0.8);
    const moved = [...vectors.keys()][5]!;
    let written = false;
    const knn: SqliteKnn = indexed({
      indexBuild: {
        sliceMs: 0,
        pause: async () => {
          if (written) return;
          written = true;
          await store.db
            .updateTable("record_vectors")
            .set({ vector: encodeVector(value) })
            .where("record_id", "=", moved)
            .execute();
          await knn.follow(ids.ds);
        },
      },
    });
    await knn.buildIndex(ids.emb);
    expect(written).toBe(true);
    vectors.set(moved, value);
    expect(knn.indexState(ids.emb)).toEqual({ indexed: 4000, tail: 1 });
    expect((await hitIds(knn, query(value)))[0]).toBe(moved);
    expect(await hitIds(knn, query(seeded[5]!, "most_similar", { limit: 60 }))).not.toContain(moved);
  });

  it("applies the filters on the index's candidates, both ways, growing past the nearest lists when they reject too many", async () => {
    const knn = indexed();
    await knn.buildIndex(ids.emb);
    const value = near(2, 0.8);
    const answered = exactTopOf(value, 5);
    const answeredLeast = exactTopOf(value, 5, -1);
    await addResponses(store.db, [...answered, ...answeredLeast], ids.user);
    const pending = [{ type: "terms" as const, scope: { entity: "response_status" as const }, values: ["pending"] }];
    const got = await hitIds(knn, query(value, "most_similar", { filters: pending, limit: 10 }));
    expect(got.filter((id) => answered.includes(id))).toEqual([]);
    const exactPending = exactTopOf(value, 10, 1, (id) => !answered.includes(id));
    expect(got.filter((id) => exactPending.includes(id)).length).toBeGreaterThanOrEqual(8);
    // The same for least similar, through the index (its lists least similar to the query).
    const before = knn.codesScored;
    const gotLeast = await hitIds(knn, query(value, "least_similar", { filters: pending, limit: 10 }));
    expect(knn.codesScored - before).toBeLessThan(4000 / 4);
    expect(gotLeast.filter((id) => answeredLeast.includes(id))).toEqual([]);
    const exactLeast = exactTopOf(value, 10, -1, (id) => !answeredLeast.includes(id));
    expect(gotLeast.filter((id) => exactLeast.includes(id)).length).toBeGreaterThanOrEqual(8);
    // Only the records of a far cluster pass (seeded in order: cluster 30 is every 40th from the 30th):
    // the candidates grow past the nearest lists to every code; the approximate answer holds only them, in order.
    const far = [...vectors.keys()].filter((_, i) => i % 40 === 30).slice(0, 30);
    const onlyFar = [{ type: "terms" as const, scope: { entity: "record" as const, property: "id" as const }, values: far }];
    for (const order of ["most_similar", "least_similar"] as const) {
      const hits = (await knn.knnSearch(query(value, order, { filters: onlyFar, limit: 10 })))!.hits;
      expect(hits).toHaveLength(10);
      expect(hits.every((h) => far.includes(h.recordId))).toBe(true);
      const scores = hits.map((h) => (order === "most_similar" ? -h.score! : h.score!));
      expect(scores).toEqual([...scores].sort((a, b) => a - b));
      const exact = exactTopOf(value, 10, order === "most_similar" ? 1 : -1, (id) => far.includes(id));
      expect(hits.filter((h) => exact.includes(h.recordId)).length).toBeGreaterThanOrEqual(6);
    }
  });
});
