import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawSqliteOf, type Store } from "../db/database.js";
import { getUsersProgress, plainUsersProgress } from "../datasets/use-cases/get-users-progress.js";
import { seededRandom } from "../testing/random.js";
import { wordDataset } from "../testing/word-records.js";
import { addResponses } from "../testing/responses.js";
import type { seedSearchData } from "./search-port.suite.js";
import { responseTalliesOf } from "./sqlite-response-tallies.js";
import { sqliteSearchFor } from "./sqlite-search.js";

/**
 * Users' progress from the responses kept in memory (sqlite-response-tallies.ts) against the plain query, on 3,000
 * records between another dataset's 600 with responses of their own: three users' submitted, draft and discarded
 * responses, completed records; then after each kind of write (inserted, updated, deleted responses, record statuses,
 * records deleted, a write of another connection, a log that overflowed) whether it read the logged rows or everything.
 */
describe("users' progress from the tallies kept in memory", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  let ids: string[];
  let others: string[];
  let u3: string;
  const random = seededRandom(3125);
  const STATUSES = ["submitted", "draft", "discarded"] as const;

  /** Responses of one status, or (null) each of a random one. */
  const respond = async (recordIds: string[], userId: string, status: (typeof STATUSES)[number] | null) => {
    if (status !== null) return addResponses(store.db, recordIds, userId, status);
    const byStatus = STATUSES.map(() => [] as string[]);
    for (const id of recordIds) byStatus[Math.floor(random() * 3)]!.push(id);
    for (const [k, s] of STATUSES.entries()) await addResponses(store.db, byStatus[k]!, userId, s);
  };
  const some = (xs: string[], p: number) => xs.filter(() => random() < p);
  const tallies = () => responseTalliesOf(rawSqliteOf(store.db)!);
  /** The progress of both datasets equal to the plain query's, and how the tallies caught up. */
  const expectPlain = async () => {
    for (const datasetId of [data.ids.ds, data.ids.other]) {
      const plain = await plainUsersProgress(store.db, datasetId);
      expect(await getUsersProgress(store.db, datasetId)).toEqual(plain);
    }
    return { loads: tallies().loads, applied: tallies().applied };
  };

  beforeAll(async () => {
    ({ dir, store, data, ids, others } = await wordDataset("tessera-tallies-", random, 3_000, false));
    u3 = randomUUID();
    await store.db
      .insertInto("users")
      .values({
        id: u3,
        username: "a-first-by-name",
        first_name: "U",
        last_name: null,
        role: "annotator",
        password_hash: "x",
        api_key: `key-${u3}`,
        inserted_at: "2024-01-01T00:00:00",
        updated_at: "2024-01-01T00:00:00",
      })
      .execute();
    for (const records of [ids, others])
      for (const [user, p] of [
        [data.ids.u1, 0.4],
        [data.ids.u2, 0.25],
        [u3, 0.1],
      ] as const)
        await respond(some(records, p), user, null);
    await store.db.updateTable("records").set({ status: "completed" }).where("id", "in", some(ids, 0.3)).execute();
    await store.db.updateTable("records").set({ status: "completed" }).where("id", "in", some(others, 0.3)).execute();
  }, 60_000);
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts as the plain query does, for every user, status and dataset", async () => {
    const before = await expectPlain();
    expect(before.loads).toBe(1);
    const progress = await getUsersProgress(store.db, data.ids.ds);
    expect(progress.map((p) => p.username)[0]).toBe("a-first-by-name");
    expect(progress.length).toBe(3);
    const sum = (kind: "completed" | "pending") => progress.reduce((n, p) => n + p[kind].submitted + p[kind].draft + p[kind].discarded, 0);
    expect(sum("completed")).toBeGreaterThan(100);
    expect(sum("pending")).toBeGreaterThan(100);
    // GET /api/v1/status reports what the tallies hold: 9 bytes per response rowid.
    const responses = Number(
      (
        await store.db
          .selectFrom("responses")
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const held = sqliteSearchFor(store.db).memoryBytes().response_tallies;
    expect(held).toBe(tallies().memoryBytes);
    expect(held).toBeGreaterThanOrEqual(9 * responses);
  });

  it("reads only the logged rows after responses inserted, updated and deleted on this connection", async () => {
    const start = await expectPlain();
    const fresh = ids.slice(0, 400);
    const answered = new Set(
      (await store.db.selectFrom("responses").select("record_id").where("user_id", "=", u3).execute()).map((r) => r.record_id),
    );
    await respond(
      fresh.filter((id) => !answered.has(id)),
      u3,
      "draft",
    );
    await store.db.updateTable("responses").set({ status: "submitted" }).where("user_id", "=", u3).where("status", "=", "draft").execute();
    const gone = await store.db.selectFrom("responses").select("id").where("user_id", "=", data.ids.u2).limit(50).execute();
    await store.db
      .deleteFrom("responses")
      .where(
        "id",
        "in",
        gone.map((g) => g.id),
      )
      .execute();
    await store.db.updateTable("records").set({ status: "completed" }).where("id", "in", fresh.slice(0, 100)).execute();
    await store.db.updateTable("records").set({ status: "pending" }).where("id", "in", ids.slice(2000, 2100)).execute();
    const after = await expectPlain();
    expect(after.loads).toBe(start.loads);
    expect(after.applied).toBeGreaterThan(start.applied);
    // A rolled back write leaves nothing logged.
    await store.db
      .transaction()
      .execute(async (trx) => {
        await trx.deleteFrom("responses").where("user_id", "=", data.ids.u1).execute();
        throw new Error("rolled back");
      })
      .catch(() => undefined);
    expect((await expectPlain()).loads).toBe(start.loads);
  });

  it("reads everything again after a record deleted, a write of another connection or a log that overflowed", async () => {
    const start = await expectPlain();
    const other = new SQLite(join(dir, "tessera.db"));
    const otherWrites = (n: number) =>
      other
        .prepare(
          `UPDATE responses SET status = 'discarded' WHERE rowid IN (SELECT rowid FROM responses WHERE status = 'submitted' LIMIT ${n})`,
        )
        .run();
    // A record with 3 responses deleted here (3 rows logged, its dataset's version moved by fewer) and 2 writes of another
    // connection: as many version moves as rows logged, yet everything is read again.
    const [withThree] = await store.db
      .selectFrom("responses as s")
      .innerJoin("records as r", "r.id", "s.record_id")
      .select("s.record_id")
      .where("r.dataset_id", "=", data.ids.ds)
      .groupBy("s.record_id")
      .having((eb) => eb.fn.countAll(), "=", 3)
      .execute();
    await store.db.deleteFrom("records").where("id", "in", [withThree!.record_id]).execute();
    otherWrites(2);
    const afterDelete = await expectPlain();
    expect(afterDelete.loads).toBe(start.loads + 1);
    try {
      otherWrites(20);
    } finally {
      other.close();
    }
    const afterOther = await expectPlain();
    expect(afterOther.loads).toBe(afterDelete.loads + 1);

    await store.db.updateTable("responses").set({ status: "draft" }).where("user_id", "=", data.ids.u1).execute();
    const afterMany = await expectPlain();
    expect(afterMany.loads).toBe(afterOther.loads);
    await store.db.updateTable("users").set({ username: "z-renamed" }).where("id", "=", u3).execute();
    expect((await getUsersProgress(store.db, data.ids.ds)).map((p) => p.username).at(-1)).toBe("z-renamed");
  });

  it("answers a dataset without responses, and a log that overflowed reads everything again", async () => {
    const empty = await getUsersProgress(store.db, randomUUID());
    expect(empty).toEqual([]);
    const t = tallies();
    // A fresh log (the triggers made again at the next full read) of 10 rows at most.
    t.logMax = 10;
    rawSqliteOf(store.db)!.exec(
      "DROP TRIGGER temp.tessera_response_log_insert; DROP TRIGGER temp.tessera_response_log_update; DROP TRIGGER temp.tessera_response_log_delete",
    );
    await store.db.deleteFrom("records").where("id", "=", ids[6]!).execute();
    const start = await expectPlain();
    await store.db.updateTable("responses").set({ status: "submitted" }).where("user_id", "=", data.ids.u2).execute();
    const after = await expectPlain();
    expect(after.loads).toBe(start.loads + 1);
  });
});
