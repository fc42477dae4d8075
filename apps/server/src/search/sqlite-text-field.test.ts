import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedStore, rawSqliteOf, type Store } from "../db/database.js";
import { indexRecordTexts } from "../records/ingest.js";
import { seededRandom } from "../testing/random.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";
import { SqliteText } from "./sqlite-text.js";
import { fieldPositionsFor, ftsVersionOf, positionsOf, warmFieldPositions } from "./sqlite-text-field.js";

const WORDS = ["alpha", "beta", "gamma", "delta", "kabrivo", "stofleso", "clalo"];

/**
 * A word in one field tested by its position in every record (sqlite-text-field.ts): pages and totals equal to the
 * field's name tested (`fieldPositions: false`), while the positions are fixed and after writes that move them.
 */
describe("text search in one field by its position", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  const random = seededRandom(3131);
  const sentence = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");

  const insert = async (datasetId: string, fields: () => Record<string, unknown>, n: number): Promise<string[]> => {
    const ts = "2024-01-01T00:00:00";
    const rows = Array.from({ length: n }, () => {
      const id = randomUUID();
      return {
        id,
        dataset_id: datasetId,
        external_id: `r-${id}`,
        fields: JSON.stringify(fields()),
        metadata: null,
        status: random() < 0.2 ? ("completed" as const) : ("pending" as const),
        inserted_at: ts,
        updated_at: ts,
      };
    });
    for (let i = 0; i < rows.length; i += 500)
      await store.db
        .insertInto("records")
        .values(rows.slice(i, i + 500))
        .execute();
    await indexRecordTexts(store.db);
    return rows.map((r) => r.id);
  };
  // The summary after the text in every record; the word "only" in the text alone.
  const fixed = () => ({ text: `${sentence(6)} only`, summary: sentence(3), image: "https://example.com/a.png" });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-text-field-"));
    store = await openEmbeddedStore(dir);
    data = await seedSearchData(store);
    await store.db.deleteFrom("records").execute();
    // Another dataset before and after, whose summary is first: in the range only when the datasets interleave.
    await insert(data.ids.other, () => ({ summary: sentence(3), text: sentence(6) }), 200);
    await insert(data.ids.ds, fixed, 1500);
    await insert(data.ids.other, () => ({ summary: sentence(3), text: sentence(6) }), 200);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pending: SearchFilter = { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] };
  const queries = (datasetId: string): { text: { q: string; field: string | null }; query: SearchQuery }[] =>
    [
      { q: "kabrivo", field: "summary" },
      { q: "alpha beta", field: "summary" },
      { q: '"alpha beta"', field: "summary" },
      { q: "stof*", field: "summary" },
      { q: "kabri*", field: "summary" },
      { q: "only", field: "summary" },
      { q: "only", field: "text" },
      { q: "nothingsuch", field: "summary" },
      { q: "", field: "summary" },
    ].flatMap((text) =>
      [
        { filters: [], offset: 0 },
        { filters: [pending], offset: 0 },
        { filters: [], offset: 30 },
      ].map(({ filters, offset }) => ({
        text,
        query: { datasetId, userId: null, text, vector: null, filters, sort: [], offset, limit: 10 },
      })),
    );

  /** Every query's answer by position (once the scan is done) equal to the answer by the field's name, on both threads. */
  const sameAnswers = async (datasetId: string) => {
    const positions = fieldPositionsFor(store.db);
    for (const options of [{}, { offThread: false }]) {
      for (const { text, query } of queries(datasetId)) {
        const plain = await new SqliteText(store.db, { ...options, fieldPositions: false }).textSearch(query, text);
        const search = new SqliteText(store.db, options);
        await search.textSearch(query, text); // starts the scan
        await positions.idle();
        const label = `${text.field}: ${text.q} ${JSON.stringify(query.filters)} @${query.offset}`;
        expect(await search.textSearch(query, text), label).toEqual(plain);
        expect(await new SqliteText(store.db, options).textSearch(query, text), label).toEqual(plain);
      }
    }
  };
  const summaryPosition = async (datasetId: string): Promise<number | null> => {
    const span = await store.db
      .selectFrom("records")
      .select((eb) => [eb.fn.min("seq").as("lo"), eb.fn.max("seq").as("hi")])
      .where("dataset_id", "=", datasetId)
      .executeTakeFirstOrThrow();
    const positions = fieldPositionsFor(store.db);
    const raw = rawSqliteOf(store.db)!;
    const version = ftsVersionOf(raw);
    positions.positionOf(Number(span.lo), Number(span.hi), "summary", version);
    await positions.idle();
    return positions.positionOf(Number(span.lo), Number(span.hi), "summary", version);
  };

  it("finds a field's one position, and none when fields share or change positions", () => {
    const rows = (pairs: [number, string | null][]) => pairs.map(([pos, field]) => ({ pos, field }));
    expect(
      positionsOf(
        rows([
          [0, "text"],
          [1, "summary"],
          [2, "image"],
        ]),
      ),
    ).toEqual(
      new Map([
        ["text", 0],
        ["summary", 1],
        ["image", 2],
      ]),
    );
    expect(
      positionsOf(
        rows([
          [0, "text"],
          [1, "summary"],
          [0, "summary"],
        ]),
      ),
    ).toEqual(new Map());
    expect(
      positionsOf(
        rows([
          [0, "text"],
          [1, "summary"],
          [1, "image"],
          [2, "image"],
        ]),
      ),
    ).toEqual(new Map([["text", 0]]));
  });

  it("answers as the field's name while every record has the field at one position", async () => {
    expect(await summaryPosition(data.ids.ds)).toBe(1);
    await sameAnswers(data.ids.ds);
  }, 120_000);

  it("answers as the field's name once records without an earlier field shift it", async () => {
    // An optional title first in some records: the summary at position 2 there.
    await insert(data.ids.ds, () => ({ title: sentence(2), ...fixed() }), 200);
    await insert(data.ids.ds, () => ({ text: null, summary: sentence(3) }), 50);
    expect(await summaryPosition(data.ids.ds)).toBeNull();
    await sameAnswers(data.ids.ds);
  }, 120_000);

  it("answers as the field's name after records are updated, deleted, and in another dataset", async () => {
    const other = await insert(data.ids.other, () => ({ summary: sentence(3), text: sentence(6) }), 300);
    expect(await summaryPosition(data.ids.other)).toBeNull(); // the other dataset's range holds the first dataset's records
    await sameAnswers(data.ids.other);
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.ds).execute();
    const ids = await insert(data.ids.ds, fixed, 800);
    expect(await summaryPosition(data.ids.ds)).toBe(1);
    await sameAnswers(data.ids.ds);
    // The fields JSON in another order in some records (an update that sends them in its order).
    for (const id of ids.slice(0, 40))
      await store.db
        .updateTable("records")
        .set({ fields: JSON.stringify({ summary: `${sentence(3)} kabrivo`, text: sentence(6) }) })
        .where("id", "=", id)
        .execute();
    await indexRecordTexts(store.db);
    expect(await summaryPosition(data.ids.ds)).toBeNull();
    await sameAnswers(data.ids.ds);
    // Deleted records: the rest in one order again.
    await store.db.deleteFrom("records").where("id", "in", ids.slice(0, 40)).execute();
    await indexRecordTexts(store.db);
    expect(await summaryPosition(data.ids.ds)).toBe(1);
    await sameAnswers(data.ids.ds);
    expect(other.length).toBe(300);
  }, 240_000);

  it("answers by the field's name when a write moves a field while it reads", async () => {
    const ids = await insert(data.ids.ds, fixed, 50);
    expect(await summaryPosition(data.ids.ds)).toBe(1);
    const genre: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["news"] };
    const text = { q: "moved", field: "summary" };
    const query: SearchQuery = {
      datasetId: data.ids.ds,
      userId: null,
      text,
      vector: null,
      filters: [genre],
      sort: [],
      offset: 0,
      limit: 10,
    };
    const search = new SqliteText(store.db);
    // A write while it reads (here after the FTS reads, from the filter's hook): the index's version moves, so the answer
    // by position is not kept, the search runs again by the field's name. The word in the text, now second (the summary's position).
    const result = await search.textSearch(query, text, async () => {
      for (const id of ids.slice(0, 5))
        await store.db
          .updateTable("records")
          .set({ fields: JSON.stringify({ summary: "other", text: "moved" }) })
          .where("id", "=", id)
          .execute();
      await indexRecordTexts(store.db);
      return () => true;
    });
    expect(search.fieldsMoved).toBe(1);
    expect(result).toEqual({ hits: [], total: 0 });
    const byName = new SqliteText(store.db, { fieldPositions: false });
    expect(await byName.textSearch(query, text, async () => () => true)).toEqual(result);
    await store.db.deleteFrom("records").where("id", "in", ids.slice(0, 5)).execute();
    await indexRecordTexts(store.db);
  });

  it("scans a dataset's positions ahead, once per index version", async () => {
    await insert(data.ids.ds, fixed, 10); // a write: the index's version moves
    const positions = fieldPositionsFor(store.db);
    const before = positions.scans;
    await warmFieldPositions(store.db, data.ids.ds);
    expect(positions.scans).toBe(before + 1);
    expect(await summaryPosition(data.ids.ds)).toBe(1);
    expect(positions.scans).toBe(before + 1);
  });
});
