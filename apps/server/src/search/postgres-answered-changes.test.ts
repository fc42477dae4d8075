import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { answeredChangesSql, applyChanges, MAX_CHANGED_ROWS } from "./postgres-answered-changes.js";
import { AnsweredSeqs } from "./postgres-answered-seqs.js";
import { queryRows } from "./postgres-sql.js";
import { answeredSeqsNow, answerRecords, copyDataset, insertRecords, lateAnnotator, seedSearchData } from "./search-port.suite.js";

// A real PostgreSQL (TESSERA_TEST_DATABASE_URL): the log is written by migration 0044's trigger.
const onPostgres = testDatabaseUrl() !== null;

const shape = (i: number) => ({ external_id: `c-${i}-${randomUUID()}`, fields: JSON.stringify({ text: `word n${i}` }), metadata: "{}" });
const seqsOf = (values: number[]) => Float64Array.from(values);

describe("the kept answered records brought up to date from the records that changed", () => {
  it("drops the changed records and merges in those answered now, ascending", () => {
    const kept = seqsOf([2, 5, 9, 14]);
    expect(Array.from(applyChanges(kept, seqsOf([5, 7, 20]), seqsOf([7, 20])))).toEqual([2, 7, 9, 14, 20]);
    expect(Array.from(applyChanges(kept, seqsOf([1, 2, 14]), seqsOf([1])))).toEqual([1, 5, 9]);
    expect(Array.from(applyChanges(kept, seqsOf([3]), seqsOf([])))).toEqual([2, 5, 9, 14]);
    expect(Array.from(applyChanges(seqsOf([]), seqsOf([4, 8]), seqsOf([4, 8])))).toEqual([4, 8]);
    expect(Array.from(applyChanges(kept, kept, seqsOf([])))).toEqual([]);
  });
});

describe.skipIf(!onPostgres)("PostgreSQL: the caller's answered records brought up to date from the log of changes (0044)", () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  let dataset: string;
  let records: { id: string; seq: number }[];

  /** The reference: the user's answered records of the dataset with those statuses, joined now. */
  const reference = (userId: string, statuses: string[]) => answeredSeqsNow(store, dataset, userId, statuses);
  const exec = (text: string, params: unknown[] = []) => queryRows(store.db, text, params as never[]);
  const version = async (userId: string) =>
    Number(
      (await queryRows<{ version: string }>(store.db, "SELECT version FROM user_answer_versions WHERE user_id = $1", [userId]))[0]
        ?.version ?? 0,
    );

  /** Every (replica, user, statuses) gives the reference; `counts` says how many full reads and log refreshes each made since `before`. */
  const check = async (replicas: AnsweredSeqs[], users: string[], statuses: string[][]) => {
    for (const replica of replicas)
      for (const user of users)
        for (const s of statuses)
          expect(Array.from(await replica.seqs(dataset, user, s)), `${user} ${s}`).toEqual(await reference(user, s));
  };
  const counts = (replicas: AnsweredSeqs[]) => replicas.map((r) => [r.reads, r.refreshes]);

  beforeAll(async () => {
    store = await openTestPostgresStore({ poolSize: 4 });
    ({ ids } = await seedSearchData(store));
    dataset = await copyDataset(store, ids.ds);
    records = (await insertRecords(store, dataset, 60, shape)).map((r) => ({ id: r.id, seq: Number(r.seq) }));
    await answerRecords(store, records.slice(0, 20), ids.u1, "submitted");
    await answerRecords(store, records.slice(20, 25), ids.u1, "draft");
    await answerRecords(store, records.slice(10, 30), ids.u2, "submitted");
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  it("gives on two replicas what a full read gives after a Submit, a discard, a draft, a deleted response, a bulk write of several users; a deleted record reads all again", async () => {
    const replicas = [new AnsweredSeqs(store.db), new AnsweredSeqs(store.db)];
    const statuses = [["submitted"], ["draft"], ["discarded"], ["draft", "submitted"]];
    const users = [ids.u1, ids.u2];
    await check(replicas, users, statuses);
    expect(counts(replicas)).toEqual([
      [8, 0],
      [8, 0],
    ]);
    const steps: [string, () => Promise<unknown>][] = [
      ["a Submit", () => answerRecords(store, [records[40]!], ids.u1, "submitted")],
      [
        "a discard",
        () => exec("UPDATE responses SET status = 'discarded' WHERE user_id = $1 AND record_id = $2", [ids.u1, records[3]!.id]),
      ],
      ["a draft", () => exec("UPDATE responses SET status = 'draft' WHERE user_id = $1 AND record_id = $2", [ids.u1, records[4]!.id])],
      [
        "a draft submitted",
        () => exec("UPDATE responses SET status = 'submitted' WHERE user_id = $1 AND record_id = $2", [ids.u1, records[21]!.id]),
      ],
      ["a deleted response", () => exec("DELETE FROM responses WHERE user_id = $1 AND record_id = $2", [ids.u1, records[5]!.id])],
      [
        "a bulk write of several users, in two datasets",
        async () => {
          const other = await insertRecords(store, ids.other, 2, shape);
          await answerRecords(store, [records[41]!, records[42]!, other[0]!], ids.u1, "submitted");
          const bulk: [{ id: string }, string, "draft" | "submitted" | "discarded"][] = [
            [records[43]!, ids.u1, "draft"],
            [records[44]!, ids.u2, "submitted"],
            [records[45]!, ids.u2, "discarded"],
            [other[1]!, ids.u2, "submitted"],
          ];
          await store.db
            .insertInto("responses")
            .values(
              bulk.map(([r, user, status]) => ({
                id: randomUUID(),
                record_id: r.id,
                user_id: user,
                status,
                values: "{}",
                inserted_at: "t",
                updated_at: "t",
              })),
            )
            .execute();
          await exec("UPDATE responses SET status = 'draft' WHERE record_id = $1", [records[15]!.id]); // both users' Submits
        },
      ],
      [
        "a change in another dataset only",
        async () => answerRecords(store, await insertRecords(store, ids.other, 1, shape), ids.u1, "submitted"),
      ],
    ];
    for (const [what, step] of steps) {
      const before = counts(replicas);
      await step();
      await check(replicas, users, statuses);
      // No full read: each entry of a user whose answers moved was brought up to date from the log.
      expect(
        counts(replicas).map((c, i) => c[0]! - before[i]![0]!),
        what,
      ).toEqual([0, 0]);
    }
    expect(replicas[0]!.refreshes).toBeGreaterThan(20);
    // A change of the values alone moves nothing.
    const v = await version(ids.u1);
    await exec(`UPDATE responses SET "values" = '{"a": 2}' WHERE user_id = $1`, [ids.u1]);
    expect(await version(ids.u1)).toBe(v);
    // A record deleted: its responses cascade once its row is gone, the log cannot say which seq: all read again, right.
    const before = counts(replicas);
    await exec("DELETE FROM records WHERE id = $1", [records[12]!.id]); // both users' Submit
    await check(replicas, users, [["submitted"]]);
    expect(counts(replicas).map((c, i) => c[0]! - before[i]![0]!)).toEqual([2, 2]);
    expect(await reference(ids.u1, ["submitted"])).not.toContain(records[12]!.seq);
  });

  it("numbers one user's versions in commit order under concurrent transactions: a later commit with the other's change is never missed", async () => {
    const user = ids.u1;
    const replica = new AnsweredSeqs(store.db);
    await check([replica], [user], [["submitted"]]);
    const [first, second] = [
      new pg.Client({ connectionString: store.databaseUrl! }),
      new pg.Client({ connectionString: store.databaseUrl! }),
    ];
    await first.connect();
    await second.connect();
    const insert = (client: pg.Client, record: { id: string }) =>
      client.query(
        "INSERT INTO responses (id, record_id, user_id, status, values, inserted_at, updated_at) VALUES ($1, $2, $3, 'submitted', '{}', 't', 't')",
        [randomUUID(), record.id, user],
      );
    try {
      const v0 = await version(user);
      await first.query("BEGIN");
      await insert(first, records[50]!); // holds the user's version row
      await second.query("BEGIN");
      const pid = (await second.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      // Waits for the first transaction's row lock.
      const waiting = second.query("UPDATE responses SET status = 'discarded' WHERE user_id = $1 AND record_id = $2", [
        user,
        records[7]!.id,
      ]);
      await expect
        .poll(async () => (await exec("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [pid])).length, {
          timeout: 10_000,
        })
        .toBe(1);
      await check([replica], [user], [["submitted"]]);
      await first.query("COMMIT");
      await waiting;
      await insert(second, records[51]!);
      expect(await version(user)).toBe(v0 + 1);
      await check([replica], [user], [["submitted"]]); // the first's Submit, the second still open
      expect(await replica.seqs(dataset, user, ["submitted"])).toContain(records[50]!.seq);
      await second.query("COMMIT");
      expect(await version(user)).toBe(v0 + 3);
      const reads = replica.reads;
      await check([replica], [user], [["submitted"]]);
      const now = await replica.seqs(dataset, user, ["submitted"]);
      expect(now).toContain(records[51]!.seq);
      expect(now).not.toContain(records[7]!.seq);
      expect(replica.reads).toBe(reads);
      // The log's versions of the user are consecutive from the first transaction on.
      const logged = await queryRows<{ version: string }>(
        store.db,
        "SELECT DISTINCT version FROM user_answer_changes WHERE user_id = $1 AND version > $2 ORDER BY 1",
        [user, v0],
      );
      expect(logged.map((r) => Number(r.version))).toEqual([v0 + 1, v0 + 2, v0 + 3]);
    } finally {
      await first.query("ROLLBACK").catch(() => null);
      await second.query("ROLLBACK").catch(() => null);
      await first.end();
      await second.end();
    }
  });

  it("reads all again when the log was pruned or a statement changed too many, and prunes itself to the last 1,000 versions of a user", async () => {
    const user = ids.u2;
    const replica = new AnsweredSeqs(store.db);
    const stale = new AnsweredSeqs(store.db);
    await check([replica, stale], [user], [["submitted"]]);
    // Pruned: the versions after the one held are gone from the log.
    await answerRecords(store, [records[52]!], user, "submitted");
    await exec("DELETE FROM user_answer_changes WHERE user_id = $1", [user]);
    let reads = replica.reads;
    await check([replica], [user], [["submitted"]]);
    expect(replica.reads).toBe(reads + 1);
    // More of the user's responses in one statement than the log keeps for one: one row that cannot say.
    const many = await insertRecords(store, dataset, 1001, shape);
    await answerRecords(store, many, user, "submitted");
    expect(await exec("SELECT 1 FROM user_answer_changes WHERE user_id = $1 AND version = $2", [user, await version(user)])).toHaveLength(
      1,
    );
    reads = replica.reads;
    await check([replica], [user], [["submitted"]]);
    expect(replica.reads).toBe(reads + 1);
    // More log rows since the version held than one statement reads: all read again.
    const part = (n: number) => [user, `{${many.slice(0, n).map((r) => r.id)}}`];
    await exec("UPDATE responses SET status = 'draft' WHERE user_id = $1 AND record_id = ANY($2::text[])", part(700));
    await exec("UPDATE responses SET status = 'discarded' WHERE user_id = $1 AND record_id = ANY($2::text[])", part(700));
    await exec(
      "UPDATE responses SET status = 'submitted' WHERE user_id = $1 AND record_id = ANY($2::text[])",
      part(MAX_CHANGED_ROWS - 1400 + 1),
    );
    reads = replica.reads;
    await check([replica], [user], [["submitted"]]);
    expect(replica.reads).toBe(reads + 1);
    // 1,100 versions, one statement each: the log keeps the user's last 1,000 to 1,100; a replica that far behind reads all.
    const start = await version(user);
    await exec(`DO $$ BEGIN FOR i IN 1..1100 LOOP
      UPDATE responses SET status = CASE WHEN i % 2 = 0 THEN 'submitted' ELSE 'draft' END WHERE user_id = '${user}' AND record_id = '${records[52]!.id}';
      END LOOP; END $$`);
    expect(await version(user)).toBe(start + 1100);
    const kept = await queryRows<{ n: string; low: string }>(
      store.db,
      "SELECT count(DISTINCT version) AS n, min(version) AS low FROM user_answer_changes WHERE user_id = $1",
      [user],
    );
    expect(Number(kept[0]!.n)).toBeGreaterThanOrEqual(1000);
    expect(Number(kept[0]!.n)).toBeLessThanOrEqual(1100);
    reads = stale.reads;
    await check([stale], [user], [["submitted"]]);
    expect(stale.reads).toBe(reads + 1);
    // Up to date again, then one Submit behind: from the log.
    reads = replica.reads;
    await check([replica], [user], [["submitted"]]);
    expect(replica.reads).toBe(reads + 1);
    await answerRecords(store, [records[53]!], user, "submitted");
    await check([replica], [user], [["submitted"]]);
    expect(replica.reads).toBe(reads + 1);
  }, 60_000);
});

describe.skipIf(!onPostgres)("PostgreSQL: the log's statement under statistics taken before the caller answered", () => {
  it("looks up each changed record by its keys, never the caller's responses one by one", async () => {
    const store = await openTestPostgresStore({ poolSize: 2 });
    try {
      const { ids } = await seedSearchData(store);
      const dataset = await copyDataset(store, ids.ds);
      const records = await insertRecords(store, dataset, 3000, shape);
      // Statistics without the caller (estimated at a few responses), then 3,000 Submits and one made a draft.
      const user = await lateAnnotator(store);
      await answerRecords(store, records, user, "submitted");
      const replica = new AnsweredSeqs(store.db);
      const held = await replica.seqs(dataset, user, ["submitted"]);
      const version = Number(
        (await queryRows<{ v: string }>(store.db, "SELECT version AS v FROM user_answer_versions WHERE user_id = $1", [user]))[0]!.v,
      );
      await queryRows(store.db, "UPDATE responses SET status = 'draft' WHERE user_id = $1 AND record_id = $2", [user, records[7]!.id]);
      const { sql, params } = answeredChangesSql(dataset, user, ["submitted"], version);
      const [row] = await queryRows<{ "QUERY PLAN": unknown }>(store.db, `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
      type Node = { "Relation Name"?: string; "Actual Rows": number; "Actual Loops": number; Plans?: Node[] };
      const nodes = (n: Node): Node[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
      const text = typeof row!["QUERY PLAN"] === "string" ? row!["QUERY PLAN"] : JSON.stringify(row!["QUERY PLAN"]);
      const plan = nodes((JSON.parse(text) as { Plan: Node }[])[0]!.Plan);
      // The one changed record's response read once (not the caller's 3,000 responses, each record looked up).
      const responses = plan.filter((n) => n["Relation Name"] === "responses");
      expect(responses.map((n) => n["Actual Rows"] * n["Actual Loops"])).toEqual([1]);
      expect(plan.filter((n) => n["Relation Name"] === "records").map((n) => n["Actual Loops"])).toEqual([1]);
      expect(Array.from(await replica.seqs(dataset, user, ["submitted"]))).toEqual(
        Array.from(held).filter((seq) => seq !== records[7]!.seq),
      );
      expect(replica.reads).toBe(1);
    } finally {
      await store.close();
    }
  }, 120_000);
});
