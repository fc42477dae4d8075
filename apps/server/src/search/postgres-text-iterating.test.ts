import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { seededRandom } from "../testing/random.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { addTextRecords } from "../testing/text-records.js";
import { addWordRecords } from "../testing/word-records.js";
import { PostgresText } from "./postgres-text.js";
import type { SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

/**
 * The SDK iterating a plain word's pages by offset (`dataset.records(query=...)`, pages of 256): each page equal to the
 * page of a search that kept nothing (every page ranked afresh: ts_rank, ties by seq), and every match ranked a few
 * times, not at each page; records added and deleted between pages.
 */
describe(`PostgreSQL text search pages at growing offsets (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    data = await seedSearchData(store);
    await addWordRecords(store.db, data.ids, seededRandom(2525), 5_000, 200);
  }, 300_000);
  afterAll(async () => {
    await store?.close();
  });

  const query = (q: string, offset: number): SearchQuery => ({
    datasetId: data.ids.ds,
    userId: null,
    text: { q, field: null },
    vector: null,
    filters: [],
    sort: [],
    offset,
    limit: 256,
  });

  it("gives the pages of a search ranked afresh, ranking every match a few times", async () => {
    for (const q of ["common", "middle"]) {
      const iterating = new PostgresText(store.db);
      let seen = 0;
      let pages = 0;
      for (let offset = 0; ; offset += 256) {
        const page = await iterating.search(query(q, offset));
        expect(page, `${q} at ${offset}`).toEqual(await new PostgresText(store.db).search(query(q, offset)));
        pages++;
        seen += page.hits.length;
        if (page.hits.length === 0) break;
      }
      expect(seen, q).toBeGreaterThan(900);
      // Pages of 256 past the first 1,024 rows: ranked again only when 4 times the rows kept no longer serve (reading
      // 3 x (offset + limit) + 32 rows as needed ranked "common" 6 times).
      expect(iterating.rankedReads, `${q}: ${pages} pages`).toBeLessThanOrEqual(Math.ceil(Math.log(seen / 256) / Math.log(4)) + 1);
    }
  }, 300_000);

  it("gives the plain pages when records are added and deleted between pages", async () => {
    const iterating = new PostgresText(store.db);
    for (const [offset, change] of [
      [0, null],
      [1_280, null],
      [1_536, "add"],
      [1_792, null],
      [2_048, "delete"],
      [2_304, null],
      [4_096, null],
    ] as const) {
      if (change === "add") await addTextRecords(store.db, data.ids.ds, [{ text: "common common common common", context: "x" }], "added");
      if (change === "delete") {
        // The dataset's first 3 records (before every page's records).
        await sql`DELETE FROM records WHERE seq IN (SELECT seq FROM records WHERE dataset_id = ${data.ids.ds} ORDER BY seq LIMIT 3)`.execute(
          store.db,
        );
      }
      const page = await iterating.search(query("common", offset));
      expect(page, `at ${offset}`).toEqual(await new PostgresText(store.db).search(query("common", offset)));
      expect(page.hits.length, `at ${offset}`).toBe(256);
    }
  }, 300_000);
});
