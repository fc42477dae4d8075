import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { openPgliteStore, type PgliteStore } from "../testing/pglite-store.js";
import { PostgresSearch, textWords } from "./postgres-search.js";
import { searchPortSuite, seedSearchData } from "./search-port.suite.js";

searchPortSuite("PostgreSQL (tsvector, pgvector) on PGlite", async () => {
  const store = await openPgliteStore();
  return { store, port: new PostgresSearch(store.db, { vectorSearch: store.vectorSearch }) };
});

describe("PostgreSQL search specifics (PGlite)", () => {
  let store: PgliteStore;
  beforeAll(async () => { store = await openPgliteStore(); }, 60_000);
  afterAll(async () => { await store?.close(); });
  const count = async (text: string) => Number((await sql<{ n: number }>`${sql.raw(text)}`.execute(store.db)).rows[0]!.n);

  it("keeps records_fts and record_vectors in step with records (insert, update, delete, dataset cascade)", async () => {
    const { ids, byExt } = await seedSearchData(store);
    const quick = "select count(*) as n from records_fts where tsv @@ plainto_tsquery('tessera_search', 'quick')";
    expect(await count(quick)).toBe(3);
    await store.db.updateTable("records").set({ fields: JSON.stringify({ text: "slow now" }) }).where("id", "=", byExt.a!).execute();
    expect(await count(quick)).toBe(2);
    const vectorsBefore = await count("select count(*) as n from record_vectors");
    await store.db.deleteFrom("records").where("id", "=", byExt.b!).execute();
    expect(await count("select count(*) as n from record_vectors")).toBe(vectorsBefore - 1);
    await store.db.deleteFrom("datasets").where("id", "=", ids.ds).execute();
    expect(await count(quick)).toBe(1);
    expect(await count("select count(*) as n from records_fts f join records r on r.seq = f.record_seq where r.dataset_id = '" + ids.ds + "'")).toBe(0);
  });

  it("round-trips float32 vectors through real[] and serves similarity from a partial HNSW index", async () => {
    const { ids, byExt } = await seedSearchData(store);
    const stored = await store.db.selectFrom("record_vectors").select("vector").where("record_id", "=", byExt.b!).executeTakeFirstOrThrow();
    expect(Array.from(new Float32Array(Uint8Array.from(stored.vector).buffer))).toEqual([Math.fround(0.9), Math.fround(0.1), 0]);
    const port = new PostgresSearch(store.db, { vectorSearch: true });
    await port.search({ datasetId: ids.ds, userId: null, text: null, vector: { settingsId: ids.emb, value: [1, 0, 0], order: "most_similar", excludeRecordId: null }, filters: [], sort: [], offset: 0, limit: 5 });
    const indexes = await sql<{ indexdef: string }>`select indexdef from pg_indexes where tablename = 'record_vectors' and indexdef like '%hnsw%'`.execute(store.db);
    expect(indexes.rows.map((r) => r.indexdef).join("\n")).toContain(`vector_settings_id = '${ids.emb}'`);
    // Idempotent (a second replica or a second call).
    await port.ensureVectorIndex(ids.emb, 3);
    await new PostgresSearch(store.db, { vectorSearch: true }).ensureVectorIndex(ids.emb, 3);
  });

  it("answers similarity with a clear 422 when pgvector is missing", async () => {
    const port = new PostgresSearch(store.db, { vectorSearch: false });
    await expect(port.search({ datasetId: "x", userId: null, text: null, vector: { settingsId: "y", value: [1], order: "most_similar", excludeRecordId: null }, filters: [], sort: [], offset: 0, limit: 5 }))
      .rejects.toMatchObject({ status: 422, body: { detail: expect.stringContaining("pgvector") } });
  });

  it("splits text into required words and prefixes", () => {
    expect(textWords(" quick  fo* * ")).toEqual([{ word: "quick", prefix: false }, { word: "fo", prefix: true }]);
  });
});
