import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openPgliteStore, type PgliteStore } from "../testing/pglite-store.js";
import { seedSearchData } from "../search/search-port.suite.js";
import { ingestRecords } from "../records/ingest.js";
import { onRecordsWritten } from "../records/write-hooks.js";
import { PlannerStatistics } from "./planner-statistics.js";

// PostgreSQL (PGlite: no autovacuum, so only an explicit ANALYZE sets the statistics).
const stores: PgliteStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

async function withRecords(count: number, metadata: (i: number) => string | null = () => null) {
  const store = await openPgliteStore({ pgvector: false });
  stores.push(store);
  const data = await seedSearchData(store);
  const rows = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    dataset_id: data.ids.ds,
    external_id: null,
    fields: JSON.stringify({ text: `row ${i}` }),
    metadata: metadata(i),
    status: "pending" as const,
    inserted_at: "2024-01-01T00:00:00",
    updated_at: "2024-01-01T00:00:00",
  }));
  for (let i = 0; i < rows.length; i += 500)
    await store.db
      .insertInto("records")
      .values(rows.slice(i, i + 500))
      .execute();
  return store;
}

const estimate = async (store: PgliteStore) =>
  Number((await sql<{ n: number }>`select reltuples as n from pg_class where oid = 'records'::regclass`.execute(store.db)).rows[0]!.n);
const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
};

describe("planner statistics after imports (PostgreSQL)", () => {
  // Real PostgreSQL beside the rest of the suite: 8-14 s each alone at load 18, over 20 s in stage 60 at load 25.
  it("analyses the record tables once enough rows were written and the writes pause", async () => {
    const store = await withRecords(1200);
    expect(await estimate(store)).toBeLessThanOrEqual(0); // never analysed: the planner guesses
    const statistics = new PlannerStatistics(store.db, { minRows: 1000, quietMs: 20 }, (error) => {
      throw error;
    });
    statistics.noteWrite(600);
    statistics.noteWrite(600);
    await until(() => statistics.analyzed > 0);
    expect(statistics.analyzed).toBe(1);
    expect(await estimate(store)).toBeGreaterThanOrEqual(1200);
    statistics.stop();
  }, 60_000);

  it("moves the GIN indexes' pending lists into the indexes after an import", async () => {
    // Rows inserted after the index exists go to its pending list (fastupdate), which every search
    // through the index reads until a VACUUM or this run moves them.
    const store = await withRecords(1200, (i) => JSON.stringify({ source: `source-${i % 7}`, n: i }));
    const statistics = new PlannerStatistics(store.db, { minRows: 1000, quietMs: 20 }, (error) => {
      throw error;
    });
    statistics.noteWrite(1200);
    await until(() => statistics.analyzed > 0);
    await until(() => statistics.ginPagesCleaned > 0);
    expect(statistics.ginPagesCleaned).toBeGreaterThan(0);
    const left = await sql<{ pages: number }>`
      select coalesce(sum(gin_clean_pending_list(i.indexrelid)), 0)::int as pages
      from pg_index i join pg_class c on c.oid = i.indexrelid join pg_am a on a.oid = c.relam
      where a.amname = 'gin'`.execute(store.db);
    expect(left.rows[0]!.pages).toBe(0);
    statistics.stop();
  }, 60_000);

  it("leaves small writes to autovacuum", async () => {
    const store = await withRecords(300);
    const statistics = new PlannerStatistics(store.db, { minRows: 1000, quietMs: 10 });
    statistics.noteWrite(300);
    await new Promise((r) => setTimeout(r, 100));
    expect(statistics.analyzed).toBe(0);
    expect(await estimate(store)).toBeLessThanOrEqual(0);
    statistics.stop();
  }, 60_000);

  it("hears of the records the ingestion writes", async () => {
    const store = await withRecords(0);
    const statistics = new PlannerStatistics(store.db, { minRows: 2, quietMs: 10 });
    onRecordsWritten(store.db, (written) => statistics.noteWrite(written.created)); // as db/postgres.ts does
    const ds = (await store.db.selectFrom("records").select("dataset_id").executeTakeFirstOrThrow()).dataset_id;
    await store.db
      .insertInto("fields")
      .values({
        id: randomUUID(),
        dataset_id: ds,
        name: "body",
        title: "Body",
        required: 0,
        settings: '{"type":"text","use_markdown":false}',
        inserted_at: "t",
        updated_at: "t",
      })
      .execute();
    await ingestRecords(store.db, ds, [{ fields: { body: "a" } }, { fields: { body: "b" } }], { mode: "create" });
    await until(() => statistics.analyzed > 0);
    expect(statistics.analyzed).toBe(1);
    statistics.stop();
  }, 60_000);
});
