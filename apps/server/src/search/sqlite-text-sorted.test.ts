import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/database.js";
import { seededRandom } from "../testing/random.js";
import { WORD_QUERIES, wordDataset } from "../testing/word-records.js";
import type { SearchFilter, SearchQuery, SearchSort } from "./search-port.js";
import type { seedSearchData } from "./search-port.suite.js";
import { SqliteSearch } from "./sqlite-search.js";
import { textIndexFor } from "./text-index.js";

/**
 * Text searches sorted by another value, walked in the sort's order from the text's matches (sqlite-text-sorted.ts),
 * against the plain path (every match scored and sorted in SQL: `candidates: false`, no metadata columns) on 3,000
 * records between two other datasets' records with the same words: sorts by a metadata property (numbers, missing
 * values), a suggestion's score (missing scores, records without a suggestion), inserted and updated time (ties of
 * updated time), ascending and descending; common, middle and rare words, a phrase, prefixes, one field, a word in no
 * record; the queue's filters of two users, an admin's, metadata and record status filters; pages beyond the first.
 */
describe("text search sorted by another value", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  const random = seededRandom(3125);

  beforeAll(async () => {
    const made = await wordDataset("tessera-text-sorted-", random, 3_000);
    ({ dir, store, data } = made);
    const ids = made.ids;
    const ts = "2024-01-01T00:00:00";
    // Updated times with many ties (a batch's records share one), in no relation to the records' order.
    for (const id of [...ids, ...made.others])
      await store.db
        .updateTable("records")
        .set({ updated_at: `2024-02-${String(1 + Math.floor(random() * 28)).padStart(2, "0")}T00:00:00` })
        .where("id", "=", id)
        .execute();
    // A suggestion on ~85% of the records, ~10% of them without a score.
    const suggested = [...ids, ...made.others].filter(() => random() < 0.85);
    const suggestion = (recordId: string) => ({
      id: randomUUID(),
      record_id: recordId,
      question_id: data.ids.label,
      value: JSON.stringify(random() < 0.5 ? "pos" : "neg"),
      score: random() < 0.1 ? null : JSON.stringify(Math.round(random() * 100) / 100),
      agent: "bert",
      type: "model" as const,
      inserted_at: ts,
      updated_at: ts,
    });
    for (let i = 0; i < suggested.length; i += 500)
      await store.db
        .insertInto("suggestions")
        .values(suggested.slice(i, i + 500).map(suggestion))
        .execute();
    for (const [userId, p] of [
      [data.ids.u1, 0.3],
      [data.ids.u2, 0.1],
    ] as const) {
      const answered = ids.filter(() => random() < p);
      await store.db
        .insertInto("responses")
        .values(
          answered.map((recordId) => ({
            id: randomUUID(),
            record_id: recordId,
            user_id: userId,
            status: random() < 0.8 ? ("submitted" as const) : ("draft" as const),
            values: JSON.stringify({ label: { value: random() < 0.5 ? "pos" : "neg" } }),
            inserted_at: ts,
            updated_at: ts,
          })),
        )
        .execute();
    }
    await textIndexFor(store.db)?.catchUp();
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pending: SearchFilter = { type: "terms", scope: { entity: "response_status" }, values: ["pending"] };
  const shapes = (): SearchFilter[][] => [
    [],
    [pending],
    [pending, { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] }],
    [{ type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] }],
  ];
  const sorts = (): SearchSort[][] =>
    (["asc", "desc"] as const).flatMap((order) => [
      [{ scope: { entity: "metadata", name: "length" }, order }],
      [{ scope: { entity: "suggestion", questionId: data.ids.label, property: "score" }, order }],
      [{ scope: { entity: "record", property: "inserted_at" }, order }],
      [{ scope: { entity: "record", property: "updated_at" }, order }],
    ]);

  it("gives the plain path's pages and totals for every sort, text and filter", async () => {
    const fast = new SqliteSearch(store.db);
    const here = new SqliteSearch(store.db, { offThread: false });
    const plain = new SqliteSearch(store.db, { candidates: false, metadataColumns: false, textSorts: false });
    let long = 0;
    for (const text of WORD_QUERIES)
      for (const filters of shapes())
        for (const sort of sorts())
          for (const userId of [data.ids.u1, null])
            for (const offset of [0, 20, 300]) {
              const q: SearchQuery = { datasetId: data.ids.ds, userId, text, vector: null, filters, sort, offset, limit: 10 };
              const expected = await plain.search(q);
              expect(await fast.search(q), JSON.stringify(q)).toEqual(expected);
              expect(await here.search(q), JSON.stringify(q)).toEqual(expected);
              const bounded = { ...q, totalBound: 40, filterBound: 25 };
              expect(await fast.search(bounded), JSON.stringify(bounded)).toEqual(await plain.search(bounded));
              if (expected.hits.length === 10 && offset === 300) long++;
            }
    expect(long).toBeGreaterThan(20);
  }, 900_000);

  it("walks the sort's order unless the updated-time walk would read too far", async () => {
    const fast = new SqliteSearch(store.db);
    const q = (text: string, sort: SearchSort[]): SearchQuery => ({
      datasetId: data.ids.ds,
      userId: data.ids.u1,
      text: { q: text, field: null },
      vector: null,
      filters: [pending],
      sort,
      offset: 0,
      limit: 10,
    });
    await fast.search(q("common", [{ scope: { entity: "metadata", name: "length" }, order: "desc" }]));
    await fast.search(q("middle", [{ scope: { entity: "record", property: "updated_at" }, order: "desc" }]));
    expect(fast.sortedTextWalks).toEqual({ pages: 2, givenUp: 0 });
    // A response value sort has no order kept: the plain path.
    await fast.search(q("common", [{ scope: { entity: "response_value", questionName: "label" }, order: "asc" }]));
    expect(fast.sortedTextWalks.pages).toBe(2);
    // An updated-time walk that would read too far (a rare word), or did (a common one whose filters pass none early): the plain path.
    const short = new SqliteSearch(store.db, { sortWalkMax: 200 });
    const plain = new SqliteSearch(store.db, { candidates: false, metadataColumns: false, textSorts: false });
    const updated: SearchSort[] = [{ scope: { entity: "record", property: "updated_at" }, order: "asc" }];
    for (const [text, offset] of [
      ["rare", 0],
      ["common", 150],
    ] as const) {
      const query = { ...q(text, updated), offset };
      expect(await short.search(query)).toEqual(await plain.search(query));
    }
    expect(short.sortedTextWalks).toEqual({ pages: 0, givenUp: 2 });
    // Suggestion values and agents (strings, ties by seq) walked as the plain path sorts them.
    const walked = fast.sortedTextWalks.pages;
    for (const property of ["value", "agent"] as const)
      for (const order of ["asc", "desc"] as const)
        for (const text of ["common", "rare"])
          for (const offset of [0, 300]) {
            const query = { ...q(text, [{ scope: { entity: "suggestion", questionId: data.ids.label, property }, order }]), offset };
            expect(await fast.search(query), JSON.stringify(query)).toEqual(await plain.search(query));
          }
    // Each walked but the rare word's pages past its total (the count answers those).
    expect(fast.sortedTextWalks.pages).toBe(walked + 12);
  }, 120_000);
});
