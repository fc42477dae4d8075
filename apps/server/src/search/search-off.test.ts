import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../config.js";
import type { Store } from "../db/database.js";
import { openTempStore } from "../testing/temp-store.js";
import { indexRecordTexts } from "../records/ingest.js";
import { encodeVector } from "../records/read.js";
import { seededRandom } from "../testing/random.js";
import { parseSearchOff, SEARCH_STRUCTURES, searchOffOf, searchOffOptions } from "./search-off.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { answerAndComplete, insertRecords, seedSearchData } from "./search-port.suite.js";
import { SqliteSearch, sqliteSearchFor } from "./sqlite-search.js";

describe("TESSERA_SEARCH_OFF", () => {
  it("reads structure names separated by spaces or commas; unset or empty: none", () => {
    expect(parseSearchOff(undefined)).toEqual([]);
    expect(parseSearchOff("  ")).toEqual([]);
    expect(parseSearchOff("metadata-columns, text-cache similarity-index,text-cache")).toEqual([
      "metadata-columns",
      "text-cache",
      "similarity-index",
    ]);
    expect(parseSearchOff(SEARCH_STRUCTURES.join(" "))).toEqual([...SEARCH_STRUCTURES]);
  });

  it("refuses an unknown name at start, naming the allowed ones", () => {
    expect(parseSearchOff("text-cache metadata-colums")).toMatch(/metadata-colums is not one of similarity-index, /);
    expect(() => loadConfig({ TESSERA_SEARCH_OFF: "warmup" }, [])).toThrow(ConfigError);
    expect(() => loadConfig({ TESSERA_SEARCH_OFF: "warmup" }, [])).toThrow(/TESSERA_SEARCH_OFF=warmup is not valid/);
    expect(loadConfig({ TESSERA_SEARCH_OFF: "ranked-ahead" }, []).searchOff).toEqual(["ranked-ahead"]);
    expect(loadConfig({}, []).searchOff).toEqual([]);
  });

  it("maps each structure to the adapter's option of its plain path, and none to no option", () => {
    expect(searchOffOptions([])).toEqual({});
    expect(searchOffOptions(["metadata-columns"])).toEqual({ metadataColumns: false });
    expect(searchOffOptions(["text-cache"])).toEqual({ cacheBytes: 0 });
    expect(searchOffOptions(["ranked-ahead"])).toEqual({ frequentRows: 0 });
    expect(searchOffOptions(["similarity-index"])).toEqual({ knn: { indexAbove: Number.POSITIVE_INFINITY } });
    expect(searchOffOptions(["candidates"])).toEqual({ candidates: false, answered: false, textSorts: false });
    expect(searchOffOptions(["text-cache", "similarity-index"])).toEqual({ cacheBytes: 0, knn: { indexAbove: Number.POSITIVE_INFINITY } });
  });
});

const WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"];

/** 400 more records in the suite's dataset: words, metadata and a vector each; every 5th answered by u1, every 7th completed. */
async function seedMore(store: Store) {
  const data = await seedSearchData(store);
  const random = seededRandom(25);
  const records = await insertRecords(store, data.ids.ds, 400, (i) => ({
    external_id: `m${i}`,
    fields: JSON.stringify({ text: Array.from({ length: 6 }, () => WORDS[Math.floor(random() ** 2 * WORDS.length)]).join(" ") }),
    metadata: JSON.stringify({ genre: ["news", "forum", "blog"][i % 3], n: i % 20 }),
  }));
  await indexRecordTexts(store.db);
  await store.db
    .insertInto("record_vectors")
    .values(
      records.map((r) => ({
        vector_settings_id: data.ids.emb,
        record_id: r.id,
        vector: encodeVector([random(), random(), random() - 0.5]),
      })),
    )
    .execute();
  await answerAndComplete(store, records, data.ids.u1);
  return data;
}

describe.each(SEARCH_STRUCTURES.map((s) => [s]))("TESSERA_SEARCH_OFF=%s", (structure) => {
  it("the server's port has it off; the same pages and totals as with it on (text, metadata, queue, similarity; another dataset's records never)", async () => {
    const store = await openTempStore("tessera-search-off-", { searchOff: [structure] });
    try {
      expect(searchOffOf(store.db)).toEqual([structure]);
      const { ids, byExt } = await seedMore(store);
      const off = sqliteSearchFor(store.db);
      const on = new SqliteSearch(store.db);
      const queue: SearchFilter[] = [
        { type: "terms", scope: { entity: "response_status" }, values: ["pending"] },
        { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
      ];
      const genre: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["news", "blog"] };
      const n: SearchFilter = { type: "range", scope: { entity: "metadata", name: "n" }, ge: 3, le: 12 };
      const q = (p: Partial<SearchQuery>): SearchQuery => ({
        datasetId: ids.ds,
        userId: ids.u1,
        text: null,
        vector: null,
        filters: queue,
        sort: [],
        offset: 0,
        limit: 10,
        ...p,
      });
      const text = (word: string) => ({ q: word, field: null });
      const vector = (order: "most_similar" | "least_similar") => ({
        settingsId: ids.emb,
        value: [0.7, 0.2, 0.1],
        order,
        excludeRecordId: null,
      });
      const queries: SearchQuery[] = [
        q({}),
        q({ offset: 20 }),
        q({ filters: [...queue, genre, n] }),
        q({ filters: [genre] }),
        q({ text: text("alpha") }),
        q({ text: text("hotel"), offset: 5 }),
        q({ text: text("bravo delta") }),
        q({ text: text("char*") }),
        q({ text: text("quick") }),
        q({ text: text("nomatchword") }),
        q({ text: text("") }),
        q({ text: text("alpha"), filters: [...queue, genre] }),
        q({ vector: vector("most_similar"), limit: 20 }),
        q({ vector: vector("least_similar"), limit: 20 }),
        q({ vector: vector("most_similar"), filters: [...queue, n] }),
      ];
      for (const query of queries) {
        const label = JSON.stringify({
          text: query.text,
          vector: query.vector?.order,
          filters: query.filters.length,
          offset: query.offset,
        });
        // Twice: the second answer of a structure that caches comes from it.
        for (let round = 0; round < 2; round++) expect(await off.search(query), label).toEqual(await on.search(query));
      }
      // What is off holds nothing.
      const memory = off.memoryBytes();
      if (structure === "metadata-columns") {
        await off.warmMetadata(ids.ds, ["genre", "n"]); // the warm-up after a start loads none either
        expect(off.memoryBytes().metadata_columns).toBe(0);
        await on.warmMetadata(ids.ds, ["genre", "n"]);
        expect(on.memoryBytes().metadata_columns).toBeGreaterThan(0);
      }
      if (structure === "text-cache") expect(memory.text_matches).toBe(0);
      expect(on.memoryBytes().text_matches).toBeGreaterThan(0);
      // Another dataset's records never come ("z" holds "fox" too).
      const fox = await off.search(q({ text: text("fox"), filters: [] }));
      expect(fox.hits.map((h) => h.recordId)).toEqual([byExt.a]);
      expect(fox.total).toBe(1);
    } finally {
      await store.close();
    }
  });
});
