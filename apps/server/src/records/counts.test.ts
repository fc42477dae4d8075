import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openEmbeddedStore, type Store } from "../db/database.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { foldSqlite, recordCounts, recordCountWithStatus } from "./counts.js";
import { refreshDatasetRecordStatuses, refreshRecordStatuses } from "./status.js";
import { seededRandom } from "../testing/random.js";

const ts = "2026-01-01T00:00:00";

/**
 * Runs a random sequence of record writes (multi-row inserts, upserts, single and bulk deletes,
 * status and dataset updates, responses changing statuses, dataset deletes) and after each one
 * compares `recordCounts` with count(*) over `records`, for every dataset.
 */
async function randomSequence(store: Store, seed: number, steps: number): Promise<void> {
  const db = store.db;
  const rand = seededRandom(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const wsId = randomUUID();
  const userIds = [randomUUID(), randomUUID()];
  await db
    .insertInto("workspaces")
    .values({ id: wsId, name: `ws-${wsId}`, inserted_at: ts, updated_at: ts })
    .execute();
  await db
    .insertInto("users")
    .values(
      userIds.map((id, i) => ({
        id,
        username: `u${i}-${id.slice(0, 8)}`,
        first_name: "U",
        last_name: null,
        role: "annotator" as const,
        password_hash: "x",
        api_key: `key-${id}`,
        inserted_at: ts,
        updated_at: ts,
      })),
    )
    .execute();
  const datasets: string[] = [];
  const newDataset = async () => {
    const id = randomUUID();
    await db
      .insertInto("datasets")
      .values({
        id,
        name: `ds-${id}`,
        guidelines: null,
        allow_extra_metadata: 1,
        status: "ready",
        distribution: '{"strategy":"overlap","min_submitted":2}',
        metadata: null,
        workspace_id: wsId,
        inserted_at: ts,
        updated_at: ts,
        last_activity_at: ts,
      })
      .execute();
    datasets.push(id);
    return id;
  };
  for (let i = 0; i < 3; i++) await newDataset();
  const deleted: string[] = [];
  const recordIds = async (datasetId: string) =>
    (await db.selectFrom("records").select("id").where("dataset_id", "=", datasetId).execute()).map((r) => r.id);
  const row = (datasetId: string, status: "pending" | "completed") => ({
    id: randomUUID(),
    dataset_id: datasetId,
    external_id: null,
    fields: "{}",
    metadata: null,
    status,
    inserted_at: ts,
    updated_at: ts,
  });

  for (let step = 0; step < steps; step++) {
    const ds = pick(datasets);
    const op = Math.floor(rand() * 11);
    const ids = await recordIds(ds);
    if (op <= 1 || ids.length === 0) {
      const n = 1 + Math.floor(rand() * 20);
      await db
        .insertInto("records")
        .values(Array.from({ length: n }, () => row(ds, rand() < 0.7 ? "pending" : "completed")))
        .execute();
    } else if (op === 2) {
      // Upsert: half existing ids (status may change), half new ones.
      const values = [row(ds, "completed"), ...ids.slice(0, 3).map((id) => ({ ...row(ds, rand() < 0.5 ? "pending" : "completed"), id }))];
      await db
        .insertInto("records")
        .values(values)
        .onConflict((oc) =>
          oc.column("id").doUpdateSet((eb) => ({ status: eb.ref("excluded.status"), updated_at: eb.ref("excluded.updated_at") })),
        )
        .execute();
    } else if (op === 3) {
      await db.deleteFrom("records").where("id", "=", pick(ids)).execute();
    } else if (op === 4) {
      await db
        .deleteFrom("records")
        .where("id", "in", ids.filter(() => rand() < 0.3).concat(["none"]))
        .execute();
    } else if (op === 5) {
      // Status updates, including no-op ones (same status) and metadata-only updates.
      await db
        .updateTable("records")
        .set({ status: rand() < 0.5 ? "pending" : "completed" })
        .where("id", "in", ids.filter(() => rand() < 0.5).concat(["none"]))
        .execute();
      await db.updateTable("records").set({ metadata: '{"a":1}' }).where("id", "=", pick(ids)).execute();
    } else if (op === 6) {
      const target = pick(datasets);
      await db
        .updateTable("records")
        .set({ dataset_id: target })
        .where("id", "in", ids.filter(() => rand() < 0.2).concat(["none"]))
        .execute();
    } else if (op === 7) {
      // Responses that change statuses under min_submitted = 2.
      const chosen = ids.filter(() => rand() < 0.3);
      for (const recordId of chosen) {
        for (const userId of userIds) {
          const status = pick(["submitted", "submitted", "draft", "discarded"] as const);
          await db
            .insertInto("responses")
            .values({ id: randomUUID(), record_id: recordId, user_id: userId, status, values: null, inserted_at: ts, updated_at: ts })
            .onConflict((oc) => oc.columns(["record_id", "user_id"]).doUpdateSet({ status }))
            .execute();
        }
      }
      if (rand() < 0.5) await refreshRecordStatuses(db, chosen, 2);
      else await refreshDatasetRecordStatuses(db, ds);
    } else if (op === 9) {
      // SQLite: fold the records above the mark into the counters (readers do it past a threshold).
      await foldSqlite(db);
    } else if (op === 10) {
      // SQLite reuses the largest seq once its record is gone: the mark must follow.
      const last = await db.selectFrom("records").select(["id", "dataset_id"]).orderBy("seq", "desc").limit(1).executeTakeFirst();
      if (last) await db.deleteFrom("records").where("id", "=", last.id).execute();
      await db
        .insertInto("records")
        .values(row(last?.dataset_id ?? ds, "completed"))
        .execute();
    } else if (datasets.length > 1 && rand() < 0.5) {
      await db.deleteFrom("datasets").where("id", "=", ds).execute();
      datasets.splice(datasets.indexOf(ds), 1);
      deleted.push(ds);
      await newDataset();
    }
    for (const id of [...datasets, ...deleted]) {
      const real = await db
        .selectFrom("records")
        .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
        .where("dataset_id", "=", id)
        .groupBy("status")
        .execute();
      const n = (s: string) => Number(real.find((r) => r.status === s)?.n ?? 0);
      expect(await recordCounts(db, id), `step ${step} (op ${op}), dataset ${datasets.indexOf(id)}`).toEqual({
        pending: n("pending"),
        completed: n("completed"),
        total: n("pending") + n("completed"),
      });
    }
  }
  for (const id of deleted) {
    expect(
      Number((await sql<{ n: number }>`select count(*) as n from dataset_record_counts where dataset_id = ${id}`.execute(db)).rows[0]!.n),
    ).toBe(0);
  }
  const ds = datasets[0]!;
  const counts = await recordCounts(db, ds);
  expect(await recordCountWithStatus(db, ds, ["pending", "pending", 1, "other"])).toBe(counts.pending);
  expect(await recordCountWithStatus(db, ds, ["completed", "pending"])).toBe(counts.total);
}

describe("dataset_record_counts (migration 0011) stays equal to count(*)", () => {
  it("on SQLite, over a random sequence of writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-counts-"));
    const store = await openEmbeddedStore(dir);
    try {
      await randomSequence(store, 11, 250);
      // One row per (dataset, status), updated in place.
      const rows = await sql<{
        n: number;
      }>`select count(*) as n from (select dataset_id, status from dataset_record_counts group by dataset_id, status having count(*) > 1) x`.execute(
        store.db,
      );
      expect(Number(rows.rows[0]!.n)).toBe(0);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("on PostgreSQL (PGlite), over a random sequence of writes, compacting its deltas", async () => {
    const store = await openPgliteStore({ pgvector: false });
    try {
      await randomSequence(store, 12, 150);
      // 100 single-record statements append 100 deltas; the next read folds them into one row per status.
      const ds = (await store.db.selectFrom("datasets").select("id").executeTakeFirstOrThrow()).id;
      const before = await recordCounts(store.db, ds);
      for (let i = 0; i < 100; i++)
        await store.db
          .insertInto("records")
          .values({
            id: randomUUID(),
            dataset_id: ds,
            external_id: null,
            fields: "{}",
            metadata: null,
            status: "pending",
            inserted_at: ts,
            updated_at: ts,
          })
          .execute();
      expect(await recordCounts(store.db, ds)).toEqual({ ...before, pending: before.pending + 100, total: before.total + 100 });
      expect(
        Number(
          (await sql<{ n: number }>`select count(*) as n from dataset_record_counts where dataset_id = ${ds}`.execute(store.db)).rows[0]!.n,
        ),
      ).toBeLessThanOrEqual(2);
      expect(await recordCounts(store.db, ds)).toEqual({ ...before, pending: before.pending + 100, total: before.total + 100 });
      const perDataset = await sql<{
        n: number;
      }>`select max(c) as n from (select count(*) as c from dataset_record_counts group by dataset_id) x`.execute(store.db);
      expect(Number(perDataset.rows[0]!.n)).toBeLessThanOrEqual(64 + 40);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("backfills the counts of records written before the migration", async () => {
    const { default: SQLite } = await import("better-sqlite3");
    const { Kysely, SqliteDialect } = await import("kysely");
    const { Migrator } = await import("kysely/migration");
    const { migrationProvider } = await import("../db/migrations/index.js");
    const sqlite = new SQLite(":memory:");
    sqlite.pragma("foreign_keys = OFF"); // records of dataset rows the test does not need
    const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo("0010-records-fts-contentless")).error).toBeUndefined();
    const insert = sqlite.prepare(
      "INSERT INTO records (id, dataset_id, fields, status, inserted_at, updated_at) VALUES (?, ?, '{}', ?, 't', 't')",
    );
    for (const [i, [ds, status]] of [
      ["a", "pending"],
      ["a", "pending"],
      ["a", "completed"],
      ["b", "completed"],
    ].entries())
      insert.run(`r${i}`, ds, status);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect(sqlite.prepare("SELECT dataset_id, status, n FROM dataset_record_counts ORDER BY 1, 2").all()).toEqual([
      { dataset_id: "a", status: "completed", n: 1 },
      { dataset_id: "a", status: "pending", n: 2 },
      { dataset_id: "b", status: "completed", n: 1 },
    ]);
    expect(sqlite.prepare("SELECT seq FROM search_index_state WHERE name = 'dataset_record_counts'").get()).toEqual({ seq: 4 });
    // No insert trigger on records (it would make every ingested record a statement transaction).
    expect(
      sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'records' AND sql LIKE '%AFTER INSERT%'").all(),
    ).toEqual([]);
    await db.destroy();
  });
});
