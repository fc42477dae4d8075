import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { getMyMetrics } from "../datasets/use-cases/get-my-metrics.js";
import { answeredCount } from "../search/postgres-filter-total.js";
import { queryRows } from "../search/postgres-sql.js";
import { PostgresSearch } from "../search/postgres-search.js";
import { answerRecords, copyDataset, insertRecords, pageQuery, seedSearchData } from "../search/search-port.suite.js";
import { compactResponseCounts, countedRows, responseCounts } from "./response-counts.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;
const shape = (tag: string) => (i: number) => ({
  external_id: `${tag}-${i}`,
  fields: JSON.stringify({ text: `word ${i}` }),
  metadata: "null",
});

describe(`PostgreSQL response counters of migration 0041 (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  let records: { id: string; seq: number }[];
  let otherRecords: { id: string; seq: number }[];
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore({ poolSize: 8 }) : await openPgliteStore();
    ({ ids } = await seedSearchData(store));
    records = await insertRecords(store, ids.ds, 60, shape("c"));
    otherRecords = await insertRecords(store, ids.other, 20, shape("o"));
  });
  afterAll(async () => store?.close());

  /** The counted truth (each response joined with its record) by status. */
  const truth = async (dataset: string, user: string) => {
    const rows = await countedRows(store.db, dataset, user);
    const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
    return { submitted: count("submitted"), draft: count("draft"), discarded: count("discarded") };
  };
  const expectExact = async () => {
    for (const dataset of [ids.ds, ids.other])
      for (const user of [ids.u1, ids.u2]) expect(await responseCounts(store.db, dataset, user)).toEqual(await truth(dataset, user));
  };

  it("counts bulk responses and single inserts", async () => {
    await answerRecords(store, records.slice(0, 20), ids.u1, "submitted");
    await answerRecords(store, records.slice(20, 25), ids.u1, "draft");
    await answerRecords(store, records.slice(10, 30), ids.u2, "submitted");
    await answerRecords(store, otherRecords.slice(0, 7), ids.u1, "submitted");
    await answerRecords(store, [records[40]!], ids.u2, "draft");
    await expectExact();
    expect((await responseCounts(store.db, ids.ds, ids.u1)).submitted).toBeGreaterThanOrEqual(20);
  });

  it("follows status changes, and ignores updates that keep the status", async () => {
    await store.db
      .updateTable("responses")
      .set({ status: "discarded" })
      .where("user_id", "=", ids.u1)
      .where(
        "record_id",
        "in",
        records.slice(0, 5).map((r) => r.id),
      )
      .execute();
    await store.db
      .updateTable("responses")
      .set({ status: "submitted" })
      .where("record_id", "=", records[20]!.id)
      .where("user_id", "=", ids.u1)
      .execute();
    await store.db.updateTable("responses").set({ values: '{"a": 1}' }).where("user_id", "=", ids.u2).execute();
    await expectExact();
  });

  it("follows response deletes", async () => {
    await store.db
      .deleteFrom("responses")
      .where("user_id", "=", ids.u2)
      .where(
        "record_id",
        "in",
        records.slice(10, 14).map((r) => r.id),
      )
      .execute();
    await expectExact();
  });

  it("follows record deletes (the responses cascade after the record row is gone)", async () => {
    await store.db
      .deleteFrom("records")
      .where(
        "id",
        "in",
        [...records.slice(2, 4), ...records.slice(15, 18), otherRecords[0]!].map((r) => r.id),
      )
      .execute();
    await expectExact();
  });

  it("drops a deleted dataset's counters", async () => {
    const gone = await copyDataset(store, ids.ds);
    const goneRecords = await insertRecords(store, gone, 10, shape("g"));
    await answerRecords(store, goneRecords, ids.u1, "submitted");
    expect((await responseCounts(store.db, gone, ids.u1)).submitted).toBe(10);
    await store.db.deleteFrom("datasets").where("id", "=", gone).execute();
    const left = await sql<{ n: string | number }>`select count(*) as n from dataset_response_counts where dataset_id = ${gone}`.execute(
      store.db,
    );
    expect(Number(left.rows[0]!.n)).toBe(0);
    await expectExact();
  });

  it("stays exact under concurrent submits and status changes from several connections", async () => {
    const fresh = records.slice(45, 60);
    await Promise.all([
      ...fresh.map((r, i) =>
        store.db.transaction().execute(async (trx) => {
          await trx
            .insertInto("responses")
            .values({
              id: randomUUID(),
              record_id: r.id,
              user_id: i % 2 ? ids.u1 : ids.u2,
              status: "submitted",
              values: "{}",
              inserted_at: "t",
              updated_at: "t",
            })
            .execute();
          if (i % 3 === 0) await trx.updateTable("responses").set({ status: "draft" }).where("record_id", "=", r.id).execute();
        }),
      ),
      ...records.slice(30, 40).map((r) => answerRecords(store, [r], ids.u1, "submitted")),
    ]);
    await expectExact();
  });

  it("compacts a user's deltas into their sums without changing them", async () => {
    const before = await responseCounts(store.db, ids.ds, ids.u1);
    await compactResponseCounts(store.db, ids.ds, ids.u1);
    const rows = await sql<{ n: string | number }>`select count(*) as n from dataset_response_counts
      where dataset_id = ${ids.ds} and user_id = ${ids.u1}`.execute(store.db);
    expect(Number(rows.rows[0]!.n)).toBeLessThanOrEqual(3);
    expect(await responseCounts(store.db, ids.ds, ids.u1)).toEqual(before);
    await expectExact();
  });

  it("gives My progress and the Submitted list's total as the old count", async () => {
    const search = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false });
    for (const user of [ids.u1, ids.u2]) {
      const counted = await truth(ids.ds, user);
      const metrics = await getMyMetrics(store.db, user, ids.ds);
      expect(metrics.responses).toMatchObject(counted);
      for (const statuses of [["submitted"], ["draft", "discarded"], ["submitted", "draft", "discarded"]]) {
        const query = pageQuery(ids.ds, [{ type: "terms", scope: { entity: "response_status" }, values: statuses }], { userId: user });
        const old = answeredCount(query, null);
        const expected = Number((await queryRows<{ n: number | string }>(store.db, old.sql, old.params))[0]!.n);
        expect((await search.search(query)).total).toBe(expected);
      }
    }
  });
});

describe.skipIf(!testDatabaseUrl())("PostgreSQL response counters: a response written while its record is deleted", () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  beforeAll(async () => {
    store = await openTestPostgresStore({ poolSize: 4 });
    ({ ids } = await seedSearchData(store));
  });
  afterAll(async () => store?.close());

  /** Until a statement deleting from records waits for a lock (another transaction's). */
  const recordDeleteWaits = async () => {
    for (;;) {
      const waiting = await sql<{ n: string }>`select count(*) as n from pg_stat_activity
        where wait_event_type = 'Lock' and query ilike 'delete from "records"%'`.execute(store.db);
      if (Number(waiting.rows[0]!.n) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const expectExactFor = async (users: string[]) => {
    for (const user of users) {
      const rows = await countedRows(store.db, ids.ds, user);
      const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
      expect(await responseCounts(store.db, ids.ds, user)).toEqual({
        submitted: count("submitted"),
        draft: count("draft"),
        discarded: count("discarded"),
      });
    }
  };

  it("subtracts a response inserted by a transaction the record's delete waits for", async () => {
    const [record] = await insertRecords(store, ids.ds, 1, shape("race-insert"));
    let recordDelete: Promise<unknown> = Promise.resolve();
    await store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto("responses")
        .values({
          id: randomUUID(),
          record_id: record!.id,
          user_id: ids.u2,
          status: "submitted",
          values: "{}",
          inserted_at: "t",
          updated_at: "t",
        })
        .execute();
      recordDelete = store.db.deleteFrom("records").where("id", "=", record!.id).execute();
      await recordDeleteWaits();
    });
    await recordDelete;
    await expectExactFor([ids.u1, ids.u2]);
  });

  it("subtracts the response once", async () => {
    const [record] = await insertRecords(store, ids.ds, 1, shape("race"));
    await answerRecords(store, [record!], ids.u1, "submitted");
    await answerRecords(store, [record!], ids.u2, "draft");
    let recordDelete: Promise<unknown> = Promise.resolve();
    await store.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("responses").where("record_id", "=", record!.id).where("user_id", "=", ids.u1).execute();
      recordDelete = store.db.deleteFrom("records").where("id", "=", record!.id).execute();
      await recordDeleteWaits();
    });
    await recordDelete;
    await expectExactFor([ids.u1, ids.u2]);
  });
});
