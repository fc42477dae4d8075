import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cachedMetricsUpTo } from "../records/metadata-metrics.js";
import { recordItems, richDataset, type RichDataset } from "../records/testing.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { loadConfig } from "../config.js";
import { startServer } from "../server.js";
import { seedSearchData } from "./search-port.suite.js";
import { sqliteSearchFor } from "./sqlite-search.js";
import { followStats, warmUpDatasets } from "./warm-up.js";
import { recordStatusesOf } from "./sqlite-status.js";

// The warm-up is the embedded store's (PostgreSQL computes the metrics and similarity in the database):
// the PostgreSQL stage, which runs this suite on PostgreSQL, has nothing to check here.
const onPostgres = Boolean(process.env.TESSERA_TEST_DATABASE_URL);
let server: TestServer;
let d: RichDataset;
beforeAll(async () => {
  if (onPostgres) return;
  server = await startTestServer();
  d = await richDataset(server);
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe.skipIf(onPostgres)("warm-up after writes (SQLite)", () => {
  it("computes the metadata metrics, loads the metadata columns and the similarity codes of a written dataset once the index is idle", async () => {
    const db = server.ctx.db;
    const items = recordItems(40, "w", (i) => ({
      metadata: { genre: ["news", "blog"][i % 2], quality: i / 40 },
      vectors: { emb: [1, i, 0] },
    }));
    const res = await d.f.request("PUT", `/datasets/${d.datasetId}/records/bulk`, { body: { items } });
    expect(res.status).toBe(200);
    const last = (await sql<{ seq: number }>`SELECT max(seq) AS seq FROM records WHERE dataset_id = ${d.datasetId}`.execute(db)).rows[0]!
      .seq;
    const vectors = (await sql<{ rowid: number }>`SELECT max(rowid) AS rowid FROM record_vectors`.execute(db)).rows[0]!.rowid;
    // Nobody asked for the metrics or searched by similarity: the idle work did.
    await vi.waitFor(
      async () => {
        expect(cachedMetricsUpTo(db, d.datasetId, "genre", "terms")).toBe(last);
        expect(cachedMetricsUpTo(db, d.datasetId, "quality", "range")).toBe(last);
        expect(cachedMetricsUpTo(db, d.datasetId, "words", "range")).toBe(last);
        const mark = (await sql<{ seq: number }>`SELECT seq FROM search_index_state WHERE name = 'record_vectors_read'`.execute(db)).rows[0]
          ?.seq;
        expect(mark).toBeGreaterThanOrEqual(vectors);
        expect(sqliteSearchFor(db).metadataColumns(d.datasetId)).toMatchObject({ genre: true, quality: true });
      },
      { timeout: 10_000, interval: 100 },
    );
    // And the route answers from them (the same figures as a fresh computation: records/metadata-metrics.test.ts).
    const props = await d.f.request<{ items: { id: string; name: string }[] }>("GET", `/me/datasets/${d.datasetId}/metadata-properties`);
    const genre = props.body.items.find((p) => p.name === "genre")!;
    const metrics = await d.f.request<{ type: string; values: { term: string; count: number }[] }>(
      "GET",
      `/metadata-properties/${genre.id}/metrics`,
    );
    expect(metrics.status).toBe(200);
    expect(metrics.body.values.reduce((a, v) => a + v.count, 0)).toBe(40);
  });

  it("brings the similarity codes, metrics and metadata columns up to date after each bulk write, without waiting for the writes to pause", async () => {
    const db = server.ctx.db;
    const search = sqliteSearchFor(db);
    const before = { codes: search.codesFollowed, ...followStats(db) };
    const mark = async () =>
      (await sql<{ seq: number }>`SELECT seq FROM search_index_state WHERE name = 'record_vectors_read'`.execute(db)).rows[0]?.seq ?? 0;
    for (let batch = 0; batch < 3; batch++) {
      const items = recordItems(20, `follow-${batch}-`, (i) => ({
        metadata: { genre: "news", quality: 0.5 },
        vectors: { emb: [i, 1, batch] },
      }));
      expect((await d.f.request("PUT", `/datasets/${d.datasetId}/records/bulk`, { body: { items } })).status).toBe(200);
      const vectors = (await sql<{ rowid: number }>`SELECT max(rowid) AS rowid FROM record_vectors`.execute(db)).rows[0]!.rowid;
      const last = (await sql<{ seq: number }>`SELECT max(seq) AS seq FROM records WHERE dataset_id = ${d.datasetId}`.execute(db)).rows[0]!
        .seq;
      // This batch's vectors, metrics and columns, after its response, each time.
      await vi.waitFor(
        async () => {
          expect(await mark()).toBeGreaterThanOrEqual(vectors);
          expect(cachedMetricsUpTo(db, d.datasetId, "genre", "terms")).toBe(last);
          expect(cachedMetricsUpTo(db, d.datasetId, "quality", "range")).toBe(last);
        },
        { timeout: 5_000, interval: 10 },
      );
    }
    // Done by the follow-ups (the idle warm-up counts none of these), columns included.
    expect(search.codesFollowed - before.codes).toBeGreaterThanOrEqual(3);
    const after = followStats(db);
    expect(after.runs - before.runs).toBeGreaterThanOrEqual(3);
    expect(after.metrics - before.metrics).toBeGreaterThanOrEqual(3 * 3);
    expect(after.metadata - before.metadata).toBeGreaterThanOrEqual(3);
    expect(search.metadataColumns(d.datasetId)).toMatchObject({ genre: true, quality: true });
  });

  it("ranks the frequent words ahead only once the similarity indexes the writes called for are built (the CPU to the build first)", async () => {
    const search = sqliteSearchFor(server.ctx.db);
    let built: () => void = () => {};
    const settled = vi.spyOn(search, "similarityIndexSettled").mockImplementation(() => new Promise<void>((resolve) => (built = resolve)));
    const ranked = vi.spyOn(search, "rankFrequentWords").mockResolvedValue();
    try {
      await warmUpDatasets(server.ctx.db, [d.datasetId]);
      await vi.waitFor(() => expect(settled).toHaveBeenCalledTimes(1));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ranked).not.toHaveBeenCalled();
      built();
      await vi.waitFor(() => expect(ranked).toHaveBeenCalledTimes(1));
    } finally {
      settled.mockRestore();
      ranked.mockRestore();
    }
  });

  it("warms the most recently active datasets up after a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "tessera-warm-"));
    const config = {
      ...loadConfig({ TESSERA_OWNER_PASSWORD: "warm-up-owner-password" }, []),
      dataDir,
      port: 0,
      host: "127.0.0.1",
      webDist: null,
    };
    try {
      const first = await startServer(config);
      const data = await seedSearchData(first.ctx.store);
      await first.ctx.db
        .insertInto("metadata_properties")
        .values({
          id: randomUUID(),
          dataset_id: data.ids.ds,
          name: "genre",
          title: "Genre",
          settings: '{"type":"terms","values":null}',
          allowed_roles: '["admin","annotator"]',
          inserted_at: "t",
          updated_at: "t",
        })
        .execute();
      await first.close();
      const second = await startServer(config);
      try {
        await vi.waitFor(
          () => {
            expect(sqliteSearchFor(second.ctx.db).metadataColumns(data.ids.ds)).toEqual({ genre: true });
            expect(recordStatusesOf(second.ctx.store.sqlite!).loads).toBe(1);
          },
          { timeout: 10_000, interval: 50 },
        );
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
