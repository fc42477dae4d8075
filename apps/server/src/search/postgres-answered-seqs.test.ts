import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { AnsweredSeqs, parseSeqs } from "./postgres-answered-seqs.js";
import { sortedHas } from "./sorted-array.js";
import { queryRows } from "./postgres-sql.js";
import { answeredSeqsNow, answerRecords, copyDataset, insertRecords, seedSearchData } from "./search-port.suite.js";

// A real PostgreSQL (TESSERA_TEST_DATABASE_URL): the versions are kept by migration 0043's triggers.
const onPostgres = testDatabaseUrl() !== null;

const shape = (i: number) => ({ external_id: `a-${i}`, fields: JSON.stringify({ text: `word n${i}`, summary: "s" }), metadata: "{}" });

describe.skipIf(!onPostgres)("PostgreSQL: the caller's answered records kept under the caller's answer version", () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  let dataset: string;
  let records: { id: string; seq: number }[];

  /** The reference: the caller's answered records of the dataset with those statuses, joined now. */
  const reference = (userId: string, statuses: string[]) => answeredSeqsNow(store, dataset, userId, statuses);

  beforeAll(async () => {
    store = await openTestPostgresStore();
    ({ ids } = await seedSearchData(store));
    dataset = await copyDataset(store, ids.ds);
    records = (await insertRecords(store, dataset, 40, shape)).map((r) => ({ id: r.id, seq: Number(r.seq) }));
    await answerRecords(store, records.slice(0, 10), ids.u1, "submitted");
    await answerRecords(store, records.slice(10, 15), ids.u1, "draft");
    await answerRecords(store, records.slice(5, 25), ids.u2, "submitted");
    // The caller's Submits in another dataset: never among this dataset's.
    await answerRecords(store, await insertRecords(store, ids.other, 5, shape), ids.u1, "submitted");
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  it("reads the caller's records of the dataset and statuses once, again only after the caller's answers change", async () => {
    const replica = new AnsweredSeqs(store.db);
    const other = new AnsweredSeqs(store.db);
    const read = async (statuses = ["submitted"]) => Array.from(await replica.seqs(dataset, ids.u1, statuses));
    expect(await read()).toEqual(await reference(ids.u1, ["submitted"]));
    expect(await read()).toHaveLength(10);
    expect(await read(["draft", "submitted"])).toEqual(await reference(ids.u1, ["submitted", "draft"]));
    expect(replica.reads).toBe(2);
    // Another annotator's Submit, and a change of the caller's values only: nothing read again.
    await answerRecords(store, [records[30]!], ids.u2, "submitted");
    await queryRows(store.db, `UPDATE responses SET "values" = '{"a": 1}' WHERE user_id = $1`, [ids.u1]);
    expect(await read()).toHaveLength(10);
    expect(replica.reads).toBe(2);
    // The caller submits (through another replica's writes: the same table): brought up to date (0044's log), with it.
    expect(Array.from(await other.seqs(dataset, ids.u1, ["submitted"]))).toHaveLength(10);
    await answerRecords(store, [records[35]!], ids.u1, "submitted");
    expect(await read()).toEqual(await reference(ids.u1, ["submitted"]));
    expect(await read()).toContain(records[35]!.seq);
    expect([replica.reads, replica.refreshes]).toEqual([2, 1]);
    expect(Array.from(await other.seqs(dataset, ids.u1, ["submitted"]))).toContain(records[35]!.seq);
    // A status change (submitted to draft), a deleted response: from the log; a deleted record (its responses cascade): read again.
    await queryRows(store.db, "UPDATE responses SET status = 'draft' WHERE user_id = $1 AND record_id = $2", [ids.u1, records[0]!.id]);
    expect(await read()).not.toContain(records[0]!.seq);
    await queryRows(store.db, "DELETE FROM responses WHERE user_id = $1 AND record_id = $2", [ids.u1, records[1]!.id]);
    expect(await read()).not.toContain(records[1]!.seq);
    await queryRows(store.db, "DELETE FROM records WHERE id = $1", [records[2]!.id]);
    expect(await read()).not.toContain(records[2]!.seq);
    expect(await read()).toEqual(await reference(ids.u1, ["submitted"]));
    expect([replica.reads, replica.refreshes]).toEqual([3, 3]);
    // The other user's records: their own.
    expect(Array.from(await replica.seqs(dataset, ids.u2, ["submitted"]))).toEqual(await reference(ids.u2, ["submitted"]));
  });

  it("keeps at most its memory budget, least recently used first out", async () => {
    const small = new AnsweredSeqs(store.db, 10 * 8);
    await small.seqs(dataset, ids.u2, ["submitted"]); // 21 records: more than the budget, not kept
    expect(small.cachedBytes).toBe(0);
    await small.seqs(dataset, ids.u1, ["draft"]);
    expect(small.cachedBytes).toBe((await reference(ids.u1, ["draft"])).length * 8);
    const reads = small.reads;
    await small.seqs(dataset, ids.u1, ["draft"]);
    expect(small.reads).toBe(reads);
  });

  it("parses PostgreSQL's array literal and finds values in ascending seqs", () => {
    expect(Array.from(parseSeqs("{}"))).toEqual([]);
    expect(Array.from(parseSeqs("{3,17,1000000}"))).toEqual([3, 17, 1_000_000]);
    const sorted = parseSeqs("{1,4,9,16}");
    expect([0, 1, 4, 5, 16, 17].map((v) => sortedHas(sorted, v))).toEqual([false, true, true, false, true, false]);
  });
});
