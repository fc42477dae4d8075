import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { Builder, queryRows, queueFilters } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { answerAndComplete, answerRecords, insertRecords, seedSearchData } from "./search-port.suite.js";
import { windowPassing } from "./postgres-window-passing.js";

const onPostgres = testDatabaseUrl() !== null;

describe(`PostgreSQL: a text query's windows passing the queue filters (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  let seqs: number[];
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    data = await seedSearchData(store);
    const records = await insertRecords(store, data.ids.ds, 120, (i) => ({
      external_id: `w-${i}`,
      fields: JSON.stringify({ text: `t${i}` }),
      metadata: "null",
    }));
    // u1 answered every 5th record, every 7th is completed; u2 answered others, some of them completed.
    await answerAndComplete(store, records, data.ids.u1);
    await answerRecords(
      store,
      records.filter((_, i) => i % 3 === 1),
      data.ids.u2,
      "draft",
    );
    // The window: some of the dataset's records, not in seq order, with records the filters exclude and others.
    seqs = records
      .filter((_, i) => i % 2 === 0 || i % 7 === 0)
      .map((r) => r.seq)
      .reverse();
  }, 180_000);
  afterAll(async () => {
    await store?.close();
  });

  const pending: SearchFilter = { type: "terms", scope: { entity: "response_status" }, values: ["pending"] };
  const status = (...values: string[]): SearchFilter => ({ type: "terms", scope: { entity: "record", property: "status" }, values });

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
        const query: SearchQuery = {
          datasetId: data.ids.ds,
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
          `r.seq = ANY(${b.p(`{${seqs.join(",")}}`)}::bigint[])`,
          `r.dataset_id = ${b.p(data.ids.ds)}`,
          ...filters.map((f) => b.filter(f)),
        ];
        const expected = Number(
          (
            await queryRows<{ n: number | string }>(store.db, `SELECT count(*) AS n FROM records r WHERE ${where.join(" AND ")}`, b.params)
          )[0]!.n,
        );
        expect(await windowPassing(store.db, query, queueFilters(filters)!, seqs), `${userId} ${JSON.stringify(filters)}`).toBe(expected);
        counts.add(expected);
      }
    // The filters exclude different records: not one count for all.
    expect(counts.size).toBeGreaterThan(4);
  });
});
