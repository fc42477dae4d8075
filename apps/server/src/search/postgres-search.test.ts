import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { openPgliteStore, type PgliteStore } from "../testing/pglite-store.js";
import { PostgresSearch } from "./postgres-search.js";
import { textWords } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { searchPortSuite, seedSearchData, TEST_FILTERS } from "./search-port.suite.js";

searchPortSuite("PostgreSQL (tsvector, pgvector) on PGlite", async () => {
  const store = await openPgliteStore();
  return { store, port: new PostgresSearch(store.db, { vectorSearch: store.vectorSearch }) };
});

describe("PostgreSQL search specifics (PGlite)", () => {
  let store: PgliteStore;
  beforeAll(async () => {
    store = await openPgliteStore();
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });
  const count = async (text: string) => Number((await sql<{ n: number }>`${sql.raw(text)}`.execute(store.db)).rows[0]!.n);

  it("keeps records_fts and record_vectors in step with records (insert, update, delete, dataset cascade)", async () => {
    const { ids, byExt } = await seedSearchData(store);
    const quick = "select count(*) as n from records_fts where tsv @@ plainto_tsquery('tessera_search', 'quick')";
    expect(await count(quick)).toBe(3);
    await store.db
      .updateTable("records")
      .set({ fields: JSON.stringify({ text: "slow now" }) })
      .where("id", "=", byExt.a!)
      .execute();
    expect(await count(quick)).toBe(2);
    const vectorsBefore = await count("select count(*) as n from record_vectors");
    await store.db.deleteFrom("records").where("id", "=", byExt.b!).execute();
    expect(await count("select count(*) as n from record_vectors")).toBe(vectorsBefore - 1);
    await store.db.deleteFrom("datasets").where("id", "=", ids.ds).execute();
    expect(await count(quick)).toBe(1);
    expect(
      await count("select count(*) as n from records_fts f join records r on r.seq = f.record_seq where r.dataset_id = '" + ids.ds + "'"),
    ).toBe(0);
  });

  it("round-trips float32 vectors through real[] and serves similarity from a partial IVFFlat index", async () => {
    const { ids, byExt } = await seedSearchData(store);
    const stored = await store.db.selectFrom("record_vectors").select("vector").where("record_id", "=", byExt.b!).executeTakeFirstOrThrow();
    expect(Array.from(new Float32Array(Uint8Array.from(stored.vector).buffer))).toEqual([Math.fround(0.9), Math.fround(0.1), 0]);
    const port = new PostgresSearch(store.db, { vectorSearch: true });
    await port.search({
      datasetId: ids.ds,
      userId: null,
      text: null,
      vector: { settingsId: ids.emb, value: [1, 0, 0], order: "most_similar", excludeRecordId: null },
      filters: [],
      sort: [],
      offset: 0,
      limit: 5,
    });
    // The server's job builds it in the background (search/postgres-vector-index.ts).
    await port.ensureVectorIndex(ids.emb, 3);
    const indexes = await sql<{
      indexdef: string;
    }>`select indexdef from pg_indexes where tablename = 'record_vectors' and indexdef like '%record_vectors_%'`.execute(store.db);
    const defs = indexes.rows.map((r) => r.indexdef).join("\n");
    expect(defs).toContain(`USING ivfflat`);
    expect(defs).toContain(`vector_settings_id = '${ids.emb}'`);
    // No HNSW index any more (one IVFFlat index serves both orders).
    expect(defs).not.toContain("USING hnsw");
    // Idempotent (a second replica or a second call).
    await new PostgresSearch(store.db, { vectorSearch: true }).ensureVectorIndex(ids.emb, 3);
  });

  it("leaves the total uncounted for a caller that reads the hits only (an export's page), with the same hits", async () => {
    const { ids, byExt } = await seedSearchData(store);
    const port = new PostgresSearch(store.db, { vectorSearch: store.vectorSearch });
    const genres: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["news", "forum", "blog"] };
    const some: SearchFilter = { type: "terms", scope: { entity: "record", property: "id" }, values: [byExt.a!, byExt.c!, byExt.d!] };
    for (const filters of [[genres], [genres, some], [some]]) {
      const query: SearchQuery = { datasetId: ids.ds, userId: null, text: null, vector: null, filters, sort: [], offset: 0, limit: 1 };
      const counted = await port.search(query);
      expect(counted.total).toBeGreaterThan(1);
      expect(await port.search({ ...query, hitsOnly: true })).toEqual({ hits: counted.hits, total: 1 });
    }
  });

  it("answers similarity with a clear 422 when pgvector is missing", async () => {
    const port = new PostgresSearch(store.db, { vectorSearch: false });
    await expect(
      port.search({
        datasetId: "x",
        userId: null,
        text: null,
        vector: { settingsId: "y", value: [1], order: "most_similar", excludeRecordId: null },
        filters: [],
        sort: [],
        offset: 0,
        limit: 5,
      }),
    ).rejects.toMatchObject({ status: 422, body: { detail: expect.stringContaining("pgvector") } });
  });

  it("text in score order: cached matches give the uncached answers after inserts, field updates, deletes, responses and status changes", async () => {
    const { ids, byExt } = await seedSearchData(store);
    const warm = new PostgresSearch(store.db, { vectorSearch: false });
    const { pending, statusPending } = TEST_FILTERS;
    const queries: SearchQuery[] = [null, ids.u1, ids.u2].flatMap((userId) =>
      [
        [],
        [pending],
        [pending, statusPending],
        [statusPending],
        [{ type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["news", "blog"] } as SearchFilter],
      ].flatMap((filters) =>
        [
          { q: "quick", field: null },
          { q: "quick", field: "text" },
          { q: "qui*", field: null },
          { q: "animals", field: null },
        ].flatMap((text) =>
          [0, 1].map((offset) => ({ datasetId: ids.ds, userId, text, vector: null, filters, sort: [], offset, limit: 2 })),
        ),
      ),
    );
    const version = async () =>
      Number(
        (await sql<{ v: number }>`select coalesce(max(id), 0) as v from text_search_changes where dataset_id = ${ids.ds}`.execute(store.db))
          .rows[0]!.v,
      );
    // Every query, warm (the same instance throughout) against the plain SQL path, and against a fresh cache.
    const plain = new PostgresSearch(store.db, { vectorSearch: false, textCache: false });
    const same = async () => {
      for (const q of queries) {
        const expected = await plain.search(q);
        expect(await warm.search(q), JSON.stringify(q)).toEqual(expected);
        expect(await new PostgresSearch(store.db, { vectorSearch: false }).search(q), JSON.stringify(q)).toEqual(expected);
      }
    };
    await same();
    const added = randomUUID();
    await store.db
      .insertInto("records")
      .values({
        id: added,
        dataset_id: ids.ds,
        external_id: "new",
        fields: JSON.stringify({ text: "quick quick quick" }),
        metadata: JSON.stringify({ genre: "blog" }),
        status: "pending",
        inserted_at: "2024-01-09T00:00:00",
        updated_at: "2024-01-09T00:00:00",
      })
      .execute();
    expect((await warm.search({ ...queries[0]!, limit: 50 })).hits.map((h) => h.recordId)).toContain(added);
    await same();
    await store.db
      .updateTable("records")
      .set({ fields: JSON.stringify({ text: "slow", context: "animals" }) })
      .where("id", "=", byExt.c!)
      .execute();
    await same();
    // A response and a record status change move the queue without a new text version.
    const before = await version();
    await store.db
      .insertInto("responses")
      .values({ id: randomUUID(), record_id: added, user_id: ids.u2, status: "submitted", values: "{}", inserted_at: "t", updated_at: "t" })
      .execute();
    await store.db
      .updateTable("records")
      .set({ status: "completed", metadata: JSON.stringify({ genre: "news" }) })
      .where("id", "=", added)
      .execute();
    expect(await version()).toBe(before);
    await same();
    // Another dataset's writes leave this one's version alone.
    await store.db
      .insertInto("records")
      .values({
        id: randomUUID(),
        dataset_id: ids.other,
        external_id: "o",
        fields: JSON.stringify({ text: "quick" }),
        metadata: null,
        status: "pending",
        inserted_at: "t",
        updated_at: "t",
      })
      .execute();
    expect(await version()).toBe(before);
    await store.db.deleteFrom("records").where("id", "=", byExt.a!).execute();
    expect(await version()).toBeGreaterThan(before);
    await same();
    // 150 equal matches, the first 140 (by seq) answered by u1: u1's page needs more of the ranking than the first candidates.
    const zebras = Array.from({ length: 150 }, (_, i) => ({
      id: randomUUID(),
      dataset_id: ids.ds,
      external_id: `zebra-${i}`,
      fields: JSON.stringify({ text: "zebra" }),
      metadata: null,
      status: "pending" as const,
      inserted_at: "t",
      updated_at: "t",
    }));
    await store.db.insertInto("records").values(zebras).execute();
    await store.db
      .insertInto("responses")
      .values(
        zebras.slice(0, 140).map((z) => ({
          id: randomUUID(),
          record_id: z.id,
          user_id: ids.u1,
          status: "submitted" as const,
          values: "{}",
          inserted_at: "t",
          updated_at: "t",
        })),
      )
      .execute();
    const zebraPage = {
      datasetId: ids.ds,
      userId: ids.u1,
      text: { q: "zebra", field: null },
      vector: null,
      filters: [pending],
      sort: [],
      offset: 0,
      limit: 5,
    };
    const page = await warm.search(zebraPage);
    expect(page.total).toBe(10);
    expect(page.hits.map((h) => h.recordId)).toEqual(zebras.slice(140, 145).map((z) => z.id));
    expect(page).toEqual(await plain.search(zebraPage));
  }, 60_000); // PGlite runs in this process: 19 s alone at load 18, over 20 s in stage 60 at load 25

  it("splits text into required words and prefixes", () => {
    expect(textWords(" quick  fo* * ")).toEqual([
      { word: "quick", prefix: false },
      { word: "fo", prefix: true },
    ]);
  });
});
