import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { Builder, queryRows, queueFilters } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import {
  answerAndComplete,
  answerRecords,
  completeRecords,
  copyDataset,
  insertRecords,
  seedSearchData,
  TEST_FILTERS,
  answerWhere,
} from "./search-port.suite.js";
import { windowPassing } from "./postgres-window-passing.js";

const onPostgres = testDatabaseUrl() !== null;

describe(`PostgreSQL: a text query's windows passing the queue filters (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  let seqs: number[];
  let records: { id: string; seq: number }[];
  let fresh: { id: string; seq: number }[];
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    data = await seedSearchData(store);
    records = await insertRecords(store, data.ids.ds, 120, (i) => ({
      external_id: `w-${i}`,
      fields: JSON.stringify({ text: `t${i}` }),
      metadata: "null",
    }));
    // u1 answered every 5th record, every 7th is completed; u2 answered others, some of them completed.
    await answerAndComplete(store, records, data.ids.u1);
    await answerWhere(store, records, (i) => i % 3 === 1, data.ids.u2, "draft");
    // The window: some of the dataset's records, not in seq order, with records the filters exclude and others.
    seqs = records
      .filter((_, i) => i % 2 === 0 || i % 7 === 0)
      .map((r) => r.seq)
      .reverse();
    // The other dataset: pending records only, every 4th answered by u1.
    fresh = await insertRecords(store, data.ids.other, 60, (i) => ({
      external_id: `f-${i}`,
      fields: JSON.stringify({ text: `t${i}` }),
      metadata: "null",
    }));
    await answerWhere(store, fresh, (i) => i % 4 === 0, data.ids.u1, "submitted");
  }, 180_000);
  afterAll(async () => {
    await store?.close();
  });

  const { pending } = TEST_FILTERS;
  const status = (...values: string[]): SearchFilter => ({ type: "terms", scope: { entity: "record", property: "status" }, values });

  /** The window's records passing the filters for a user (u1 unless given), by windowPassing and by the filters' own SQL. */
  const both = async (datasetId: string, filters: SearchFilter[], window: number[], userId = data.ids.u1) => {
    const query: SearchQuery = {
      datasetId,
      userId,
      text: { q: "t", field: null },
      vector: null,
      sort: [],
      offset: 0,
      limit: 10,
      filters,
    };
    const b = new Builder(userId);
    const where = [
      `r.seq = ANY(${b.p(`{${window.join(",")}}`)}::bigint[])`,
      `r.dataset_id = ${b.p(datasetId)}`,
      ...filters.map((f) => b.filter(f)),
    ];
    const rows = await queryRows<{ n: number | string }>(
      store.db,
      `SELECT count(*) AS n FROM records r WHERE ${where.join(" AND ")}`,
      b.params,
    );
    return { got: await windowPassing(store.db, query, queueFilters(filters)!, window), expected: Number(rows[0]!.n) };
  };

  it("equals the count of the window's records through the filters' own SQL, for each queue filter and user", async () => {
    const counts = new Set<number>();
    for (const userId of [data.ids.u1, data.ids.u2])
      for (const filters of [
        [],
        [pending],
        [status("pending")],
        [pending, status("pending")],
        [status("completed")],
        [pending, status("completed")],
        [status("archived")],
        [status("pending", "completed")],
      ]) {
        const { got, expected } = await both(data.ids.ds, filters, seqs, userId);
        expect(got, `${userId} ${JSON.stringify(filters)}`).toBe(expected);
        counts.add(expected);
      }
    // The filters exclude different records: not one count for all.
    expect(counts.size).toBeGreaterThan(4);
  });

  it("counts the records of another status alike from the counters (none), the status index (few for the range) or one by one (many)", async () => {
    const all = records.map((r) => r.seq);
    const windows = {
      // 18 completed records (every 7th) of the ~120: 18 x 120 <= 4 x 60 x 120, the range read in the status index.
      wide: all.filter((_, i) => i % 2 === 0),
      // Two records 118 seqs apart (the first completed, the other pending): 18 x 119 > 4 x 2 x 120, each looked up.
      ends: [all[0]!, all[118]!],
      // A completed record alone, and a pending one beside it.
      one: [all[7]!],
      pair: [all[7]!, all[8]!],
    };
    const filterSets = [
      [status("pending")],
      [pending, status("pending")],
      [status("completed")],
      [pending, status("completed")],
      [status("archived")],
    ];
    for (const [name, window] of Object.entries(windows))
      for (const filters of filterSets) {
        const { got, expected } = await both(data.ids.ds, filters, window);
        expect(got, `${name} ${JSON.stringify(filters)}`).toBe(expected);
      }
    // The range and the lookups find the window's completed records (record 0 is completed: answerAndComplete).
    expect((await both(data.ids.ds, [status("pending")], windows.wide)).got).toBeLessThan(windows.wide.length);
    expect((await both(data.ids.ds, [status("pending")], windows.ends)).got).toBe(1);
    // A dataset of pending records only: nothing of another status, the caller's answers still excluded.
    const window = fresh.map((r) => r.seq);
    for (const filters of [[status("pending")], [pending, status("pending")], [status("completed")], [pending]]) {
      const { got, expected } = await both(data.ids.other, filters, window);
      expect(got, JSON.stringify(filters)).toBe(expected);
    }
    expect((await both(data.ids.other, [status("pending")], window)).got).toBe(window.length);
    expect((await both(data.ids.other, [pending, status("pending")], window)).got).toBe(window.length - 15);
    // A record completed since (its counter moved): counted at once.
    await completeRecords(store, [fresh[1]!]);
    expect((await both(data.ids.other, [status("pending")], window)).got).toBe(window.length - 1);
  });
  it("counts a completed head's records among the window's seqs and reads the status index only after it", async () => {
    // A dataset whose first 40 records are completed (a team's first Submits), then every 9th; u1 answered every 4th.
    const ds = await copyDataset(store, data.ids.ds);
    const head = await insertRecords(store, ds, 100, (i) => ({
      external_id: `h-${i}`,
      fields: JSON.stringify({ text: `t${i}` }),
      metadata: "null",
    }));
    const [completed, answered] = [head.filter((_, i) => i < 40 || i % 9 === 0), head.filter((_, i) => i % 4 === 1)];
    await completeRecords(store, completed);
    await answerRecords(store, answered, data.ids.u1, "submitted");
    const all = head.map((r) => r.seq);
    const windows = { all, inHead: all.slice(0, 30), across: all.filter((_, i) => i % 3 === 0).reverse(), after: all.slice(50) };
    for (const [name, window] of Object.entries(windows))
      for (const filters of [
        [status("pending")],
        [pending, status("pending")],
        [status("completed")],
        [pending, status("completed")],
        [pending],
      ]) {
        const { got, expected } = await both(ds, filters, window);
        expect(got, `${name} ${JSON.stringify(filters)}`).toBe(expected);
      }
    expect((await both(ds, [status("pending")], windows.inHead)).got).toBe(0);
    // No record of the kept status: every window record fails (the head is the whole dataset).
    const done = await copyDataset(store, data.ids.ds);
    const finished = await insertRecords(store, done, 5, (i) => ({
      external_id: `c-${i}`,
      fields: JSON.stringify({ text: `t${i}` }),
      metadata: "null",
    }));
    await completeRecords(store, finished);
    expect(
      await both(
        done,
        [status("pending")],
        finished.map((r) => r.seq),
      ),
    ).toEqual({ got: 0, expected: 0 });
  });
});
