import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/database.js";
import { seededRandom } from "../testing/random.js";
import { wordDataset } from "../testing/word-records.js";
import type { SearchQuery } from "./search-port.js";
import type { seedSearchData } from "./search-port.suite.js";
import { SqliteText } from "./sqlite-text.js";
import { textIndexFor } from "./text-index.js";

/**
 * The SDK iterating a text query's pages by offset (`dataset.records(query=...)`): each page equal to the page of a
 * search that keeps nothing (every page ranked afresh), and the best rows read again a few times (4 times as many each), not at
 * every page, on this thread and on the read threads.
 */
describe("text search pages at growing offsets", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  beforeAll(async () => {
    ({ dir, store, data } = await wordDataset("tessera-text-iterating-", seededRandom(3131), 3_000, false));
    await textIndexFor(store.db)?.catchUp();
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("gives the pages of a search ranked afresh, reading the best rows a few times", async () => {
    for (const options of [{}, { offThread: false }]) {
      for (const q of ["common", "middle"]) {
        const iterating = new SqliteText(store.db, options);
        const fresh = new SqliteText(store.db, { ...options, cacheBytes: 0 });
        const text = { q, field: null };
        let pages = 0;
        let seen = 0;
        for (let offset = 0; ; offset += 100) {
          const query: SearchQuery = {
            datasetId: data.ids.ds,
            userId: null,
            text,
            vector: null,
            filters: [],
            sort: [],
            offset,
            limit: 100,
          };
          const page = await iterating.textSearch(query, text);
          expect(page, `${q} at ${offset}`).toEqual(await fresh.textSearch(query, text));
          pages++;
          seen += page.hits.length;
          if (page.hits.length === 0) break;
        }
        expect(seen, q).toBeGreaterThan(400);
        // Pages of 100 past the first 1,024 rows: read again at most every 4 times the rows (doubling read "common" 5 times).
        expect(iterating.rankedReads, `${q}: ${pages} pages`).toBeLessThanOrEqual(Math.ceil(Math.log(seen / 100) / Math.log(4)) + 1);
        expect(fresh.rankedReads).toBeGreaterThan(iterating.rankedReads);
      }
    }
  });

  it("reads the best rows once for a deep page and the pages after it (the SDK's query iterated from an offset)", async () => {
    for (const options of [{}, { offThread: false }]) {
      const iterating = new SqliteText(store.db, options);
      const text = { q: "common", field: null };
      for (let offset = 400; offset < 1_400; offset += 10) {
        const query: SearchQuery = { datasetId: data.ids.ds, userId: null, text, vector: null, filters: [], sort: [], offset, limit: 10 };
        const page = await iterating.textSearch(query, text);
        expect(page, `at ${offset}`).toEqual(await new SqliteText(store.db, { ...options, cacheBytes: 0 }).textSearch(query, text));
        expect(page.hits.length).toBe(10);
      }
      // 4 x (3 x 410 + 32) rows at the first page (all of them here); reading 3 x (offset + limit) + 32 read them again at the second.
      expect(iterating.rankedReads).toBe(1);
    }
  }, 120_000);
});
