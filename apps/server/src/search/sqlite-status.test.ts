import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedStore, rawSqliteOf, type Store } from "../db/database.js";
import { indexRecordTexts } from "../records/ingest.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";
import { queueExclusions } from "./sqlite-metadata.js";
import { SqliteSearch } from "./sqlite-search.js";
import { RecordStatuses, recordStatusesOf } from "./sqlite-status.js";
import { seededRandom } from "../testing/random.js";
import { addResponses } from "../testing/responses.js";

/**
 * The in-memory record statuses of the queue exclusions (sqlite-status.ts, change log of migration
 * 0015): after every step of a random sequence of inserts, status changes, deletes (of the largest
 * seq too, then reused), moves between datasets and responses, the warm adapters' queue searches
 * (metadata filter + count, text) give the SQL path's hits and totals, and the exclusions are those
 * SQL reads.
 */
describe("SQLite in-memory record statuses", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  const random = seededRandom(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const ts = "2024-01-01T00:00:00";
  const sources = ["news", "forum", "web"];
  const words = ["alpha", "beta"];

  const insert = async (datasetId = random() < 0.75 ? data.ids.ds : data.ids.other) => {
    const id = randomUUID();
    await store.db
      .insertInto("records")
      .values({
        id,
        dataset_id: datasetId,
        external_id: `r-${id}`,
        fields: JSON.stringify({ text: `${pick(words)} ${pick(words)} filler` }),
        metadata: JSON.stringify({ source: pick(sources), quality: Math.round(random() * 100) / 100 }),
        status: random() < 0.5 ? "completed" : "pending",
        inserted_at: ts,
        updated_at: ts,
      })
      .execute();
  };
  const recordIds = async (datasetId?: string) =>
    await store.db
      .selectFrom("records")
      .select(["id", "seq", "dataset_id", "status"])
      .$if(datasetId !== undefined, (q) => q.where("dataset_id", "=", datasetId!))
      .orderBy("seq")
      .execute();

  const queueFilters = (statuses: string[]): SearchFilter[] => [
    { type: "terms", scope: { entity: "response_status" }, values: ["pending"] },
    { type: "terms", scope: { entity: "record", property: "status" }, values: statuses },
  ];
  const queries = (datasets: string[]): SearchQuery[] => {
    const out: SearchQuery[] = [];
    for (const datasetId of datasets) {
      for (const statuses of [["pending"], ["completed"]]) {
        for (const userId of [data.ids.u1, null]) {
          const base = { datasetId, userId, vector: null, sort: [], offset: pick([0, 0, 3]), limit: pick([5, 500]) };
          out.push({
            ...base,
            text: null,
            filters: [{ type: "terms", scope: { entity: "metadata", name: "source" }, values: [pick(sources)] }, ...queueFilters(statuses)],
          });
          out.push({ ...base, text: { q: pick(words), field: null }, filters: queueFilters(statuses) });
        }
      }
    }
    return out;
  };

  let warm: SqliteSearch;
  /** The exclusions as SQL reads them, among seqs 1..top: not a record of the dataset with one of these statuses, or answered. */
  const expectedExcluded = (datasetId: string, userId: string | null, statuses: string[], top: number) => {
    const raw = rawSqliteOf(store.db)!;
    const kept = new Set(
      raw
        .prepare(`SELECT seq FROM records WHERE dataset_id = ? AND status IN (${statuses.map(() => "?").join(", ")})`)
        .pluck()
        .all(datasetId, ...statuses) as number[],
    );
    const answered = new Set(
      (userId !== null
        ? raw
            .prepare("SELECT r.seq FROM responses mine CROSS JOIN records r ON r.id = mine.record_id WHERE mine.user_id = ?")
            .pluck()
            .all(userId)
        : raw
            .prepare("SELECT r.seq FROM (SELECT DISTINCT record_id FROM responses) AS mine CROSS JOIN records r ON r.id = mine.record_id")
            .pluck()
            .all()) as number[],
    );
    const out: number[] = [];
    for (let seq = 1; seq <= top; seq++) if (!kept.has(seq) || answered.has(seq)) out.push(seq);
    return out;
  };
  const check = async (step: string, datasets = [data.ids.ds, data.ids.other]) => {
    await indexRecordTexts(store.db);
    const raw = rawSqliteOf(store.db)!;
    for (const q of queries(datasets)) {
      // SQL: the metadata filter without columns; text below 2,048 matches counted by SQL (default fewMatches).
      const expected = await new SqliteSearch(store.db, { metadataColumns: false }).search(q);
      expect(await warm.search(q), `${step} ${JSON.stringify(q)}`).toEqual(expected);
    }
    const top = ((await recordIds()).at(-1)?.seq ?? 0) + 3;
    for (const datasetId of datasets) {
      for (const statuses of [["pending"], ["completed"], ["pending", "completed"]]) {
        for (const userId of [data.ids.u2, null]) {
          const got = queueExclusions(raw, datasetId, userId, queueFilters(statuses).slice(1), true);
          const excluded: number[] = [];
          for (let seq = 1; seq <= top; seq++) if (got.excluded(seq)) excluded.push(seq);
          expect(excluded, `${step} ${statuses.join()}`).toEqual(expectedExcluded(datasetId, userId, statuses, top));
          // As a list (the read threads' walk, sqlite-text.ts): the dataset's records left out and the answered seqs, in order.
          const own = new Set(raw.prepare("SELECT seq FROM records WHERE dataset_id = ?").pluck().all(datasetId) as number[]);
          const listed = excluded.filter((seq) => own.has(seq) || got.answered.has(seq));
          expect(Array.from(got.list(listed.length) ?? []), `${step} ${statuses.join()} list`).toEqual(listed);
          if (listed.length > 0) expect(got.list(listed.length - 1)).toBeNull();
        }
      }
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-status-"));
    store = await openEmbeddedStore(dir);
    data = await seedSearchData(store);
    for (let i = 0; i < 120; i++) await insert();
    warm = new SqliteSearch(store.db, { fewMatches: -1 });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("follows inserts, status changes, deletes, reused seqs, moves and responses exactly", async () => {
    await check("start");
    for (let step = 0; step < 60; step++) {
      const op = pick(["insert", "status", "status", "delete", "deleteTop", "move", "move", "answer"] as const);
      const all = await recordIds();
      const r = pick(all);
      if (op === "insert") for (let i = 0; i < 1 + Math.floor(random() * 3); i++) await insert();
      else if (op === "status")
        await store.db
          .updateTable("records")
          .set({ status: r.status === "pending" ? "completed" : "pending" })
          .where("id", "=", r.id)
          .execute();
      else if (op === "delete") await store.db.deleteFrom("records").where("id", "=", r.id).execute();
      else if (op === "deleteTop") {
        // The largest seq, deleted: SQLite gives it to the next insert (into either dataset).
        const top = all[all.length - 1]!;
        await store.db.deleteFrom("records").where("id", "=", top.id).execute();
        if (random() < 0.5) await check(`step ${step} top deleted`);
        await insert();
        const again = await recordIds();
        expect(again[again.length - 1]!.seq).toBe(top.seq);
      } else if (op === "move")
        await store.db
          .updateTable("records")
          .set({
            dataset_id: r.dataset_id === data.ids.ds ? data.ids.other : data.ids.ds,
            ...(random() < 0.3 ? { status: r.status === "pending" ? "completed" : "pending" } : {}),
          })
          .where("id", "=", r.id)
          .execute();
      else {
        const user = pick([data.ids.u1, data.ids.u2]);
        const done = await store.db
          .selectFrom("responses")
          .select("id")
          .where("record_id", "=", r.id)
          .where("user_id", "=", user)
          .executeTakeFirst();
        if (!done) await addResponses(store.db, [r.id], user);
      }
      await check(`step ${step} ${op}`);
    }
  });

  it("follows the same on a dataset alone in its seq range (the text search's queue count)", async () => {
    // A third dataset whose records come last: its range stays its own, so the text count goes
    // through the in-memory statuses (moves: of its last record, out and back).
    const solo = randomUUID();
    await store.db
      .insertInto("datasets")
      .values({
        id: solo,
        name: `ds-${solo}`,
        guidelines: null,
        allow_extra_metadata: 1,
        status: "ready",
        distribution: '{"strategy":"overlap","min_submitted":1}',
        metadata: null,
        workspace_id: data.ids.ws,
        inserted_at: ts,
        updated_at: ts,
        last_activity_at: ts,
      })
      .execute();
    for (let i = 0; i < 80; i++) await insert(solo);
    await check("solo start", [solo]);
    let away: string | null = null;
    for (let step = 0; step < 40; step++) {
      const op = pick(["insert", "status", "status", "delete", "deleteTop", "move", "answer"] as const);
      const mine = await recordIds(solo);
      const r = pick(mine);
      const last = mine[mine.length - 1]!;
      if (op === "insert" && away === null) await insert(solo);
      else if (op === "status")
        await store.db
          .updateTable("records")
          .set({ status: r.status === "pending" ? "completed" : "pending" })
          .where("id", "=", r.id)
          .execute();
      else if (op === "delete" && r.id !== last.id) await store.db.deleteFrom("records").where("id", "=", r.id).execute();
      else if (op === "deleteTop" && away === null) {
        await store.db.deleteFrom("records").where("id", "=", last.id).execute();
        if (random() < 0.5) await check(`solo ${step} top deleted`, [solo]);
        await insert(solo);
        expect((await recordIds(solo)).at(-1)!.seq).toBe(last.seq);
      } else if (op === "move") {
        if (away === null) {
          away = last.id;
          await store.db.updateTable("records").set({ dataset_id: data.ids.other }).where("id", "=", away).execute();
        } else {
          await store.db
            .updateTable("records")
            .set({ dataset_id: solo, status: pick(["pending", "completed"]) })
            .where("id", "=", away)
            .execute();
          away = null;
        }
      } else if (op === "answer") {
        const user = pick([data.ids.u1, data.ids.u2]);
        const done = await store.db
          .selectFrom("responses")
          .select("id")
          .where("record_id", "=", r.id)
          .where("user_id", "=", user)
          .executeTakeFirst();
        if (!done) await addResponses(store.db, [r.id], user);
      }
      await check(`solo ${step} ${op}`, [solo, data.ids.other]);
    }
  });

  it("reloads when the change log was pruned past a reader", async () => {
    const raw = rawSqliteOf(store.db)!;
    const shared = recordStatusesOf(raw);
    const behind = new RecordStatuses(raw);
    expect(behind.memoryBytes).toBe(0);
    behind.of(data.ids.ds);
    expect(behind.loads).toBe(1);
    expect(behind.memoryBytes).toBeGreaterThanOrEqual((await recordIds(data.ids.ds)).length); // a byte per record
    shared.pruneAbove = 5;
    const records = await recordIds(data.ids.ds);
    for (const r of records.slice(0, 20))
      await store.db
        .updateTable("records")
        .set({ status: r.status === "pending" ? "completed" : "pending" })
        .where("id", "=", r.id)
        .execute();
    shared.of(data.ids.ds); // applies and prunes the log
    expect(raw.prepare("SELECT count(*) FROM records_status_changes").pluck().get()).toBe(0);
    const status = behind.of(data.ids.ds);
    expect(behind.loads).toBe(2);
    const now = await recordIds(data.ids.ds);
    expect(now.map((r) => status.code(r.seq))).toEqual(now.map((r) => (r.status === "pending" ? 1 : 2)));
    await check("after pruning");
    shared.pruneAbove = 50_000;
  });
});
