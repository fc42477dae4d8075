import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openEmbeddedStore, type Store } from "../db/database.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { PostgresSearch } from "./postgres-search.js";
import type { SearchFilter, SearchPort, SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";
import { SqliteSearch } from "./sqlite-search.js";

/**
 * The annotator's queue total (response status pending, record status terms) now comes from the
 * dataset's record counters (migration 0011); it must equal the count of the general path, which a
 * neutral extra filter (an unbounded range) forces.
 */
async function compareQueueTotals(store: Store, port: SearchPort): Promise<void> {
  const { ids, byExt } = await seedSearchData(store);
  await store.db.updateTable("records").set({ status: "completed" }).where("id", "in", [byExt.a!, byExt.b!]).execute();
  const pending: SearchFilter = { type: "terms", scope: { entity: "response_status" }, values: ["pending"] };
  const status = (values: unknown[]): SearchFilter => ({ type: "terms", scope: { entity: "record", property: "status" }, values });
  const neutral: SearchFilter = { type: "range", scope: { entity: "record", property: "inserted_at" }, ge: null, le: null };
  const query = (userId: string | null, filters: SearchFilter[]): SearchQuery => ({
    datasetId: ids.ds,
    userId,
    text: null,
    vector: null,
    filters,
    sort: [],
    offset: 0,
    limit: 2,
  });
  const cases = [
    [],
    [status(["pending"])],
    [status(["completed"])],
    [status(["pending", "completed", "pending"])],
    [status(["pending"]), status(["completed"])],
    [status(["other", 1])],
  ];
  const totals: number[] = [];
  for (const userId of [ids.u1, ids.u2, null]) {
    for (const others of cases) {
      const fast = await port.search(query(userId, [pending, ...others]));
      const general = await port.search(query(userId, [pending, ...others, neutral]));
      expect(fast, JSON.stringify({ userId, others })).toEqual(general);
      totals.push(fast.total);
    }
  }
  // u1 answered a (completed) and c (pending); u2 answered b (completed).
  expect(totals.slice(0, 6)).toEqual([2, 1, 1, 2, 0, 0]);
  expect(totals.slice(6, 12)).toEqual([3, 2, 1, 3, 0, 0]);
}

describe("queue totals from the record counters", () => {
  it("SQLite: equal to the general count", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-queue-"));
    const store = await openEmbeddedStore(dir);
    try {
      await compareQueueTotals(store, new SqliteSearch(store.db));
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("PostgreSQL (PGlite): equal to the general count", async () => {
    const store = await openPgliteStore({ pgvector: false });
    try {
      await compareQueueTotals(store, new PostgresSearch(store.db, { vectorSearch: false }));
    } finally {
      await store.close();
    }
  }, 60_000);
});
