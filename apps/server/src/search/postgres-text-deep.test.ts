import { Kysely, PostgresDialect, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../db/postgres.js";
import type { DB } from "../db/schema.js";
import type { Store } from "../db/store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { seededRandom } from "../testing/random.js";
import { addTextRecords } from "../testing/text-records.js";
import { addWordRecords } from "../testing/word-records.js";
import { Builder, queryRows, textWords } from "./postgres-sql.js";
import { PostgresRankAhead } from "./postgres-rank-ahead.js";
import { PostgresText } from "./postgres-text.js";
import { pageAhead } from "./postgres-text-ahead.js";
import { scored } from "./postgres-text-scored.js";
import type { SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";

// A real PostgreSQL (stage 60, pgone.sh): the statements' parameters are logged through a pool of its own.
const onPostgres = testDatabaseUrl() !== null;

/**
 * The SDK iterating a plain word's pages of 256 by offset (`dataset.records(query=...)`) without filters: every page equal to
 * the plain ts_rank order computed here in SQL (best field's score, ties by seq), for a word with many ties, a rarer one, a
 * word of no record, an empty query and another dataset; records added and deleted between pages; and a page looks up its
 * own records only (postgres-text-deep.ts), not every record before it.
 */
/** A node of a plan as `EXPLAIN (FORMAT JSON)` gives it. */
type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

describe.skipIf(!onPostgres)("PostgreSQL text search: deep pages of a plain word", () => {
  let store: Store;
  let logged: Kysely<DB>;
  const params: unknown[][] = [];
  const statements: string[] = [];
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  beforeAll(async () => {
    store = await openTestPostgresStore();
    logged = new Kysely<DB>({
      dialect: new PostgresDialect({ pool: createPool(store.databaseUrl!, 4) }),
      log: (event) => {
        if (event.level !== "query") return;
        params.push([...event.query.parameters]);
        statements.push(event.query.sql);
      },
    });
    data = await seedSearchData(store);
    await addWordRecords(store.db, data.ids, seededRandom(3131), 3_000, 300);
  }, 300_000);
  afterAll(async () => {
    await logged?.destroy();
    await store?.close();
  });

  /** The SDK's page of 256 of a text query (no filters, no sort). */
  const SDK_PAGE = { userId: null, vector: null, filters: [], sort: [], limit: 256 } satisfies Partial<SearchQuery>;
  const query = (q: string, offset: number, datasetId = data.ids.ds): SearchQuery => ({
    ...SDK_PAGE,
    datasetId,
    text: { q, field: null },
    offset,
  });

  /** Every match of the dataset by the best field's ts_rank, then seq: the plain order, read here without the search's code. */
  const plain = async (q: string, datasetId = data.ids.ds) => {
    const words = textWords(q);
    if (words.length === 0) return [];
    const b = new Builder(null);
    const tsq = b.tsQuery(words);
    const rows = await queryRows<{ id: string; score: number }>(
      store.db,
      `SELECT r.id AS id, max(ts_rank(f.tsv, (${tsq})))::float8 AS score FROM records_fts f JOIN records r ON r.seq = f.record_seq
       WHERE r.dataset_id = ${b.p(datasetId)} AND f.tsv @@ (${tsq}) GROUP BY f.record_seq, r.id ORDER BY score DESC, f.record_seq`,
      b.params,
    );
    return rows.map((r) => ({ recordId: r.id, score: r.score }));
  };

  /** The `records_fts` rows (one a text field of a record, of any dataset) where a word occurs. */
  const rowsWith = async (q: string) =>
    Number(
      (
        await queryRows<{ n: number | string }>(
          store.db,
          "SELECT count(*) AS n FROM records_fts WHERE tsv @@ plainto_tsquery('tessera_search', $1)",
          [q],
        )
      )[0]!.n,
    );

  /**
   * The rows of `record_search` or `records_fts` that the statement reading a page's single occurrences (the last logged page's)
   * read, explained as it ran: after the statements before it (reads), in one transaction (the settings of its own).
   */
  const singlesRead = async (q: string) => {
    // The total's statement, beside it, has no LIMIT.
    const i = statements.findIndex((s) => s.includes("@@") && s.includes("LIMIT"));
    expect(i, q).toBeGreaterThan(0);
    const plan = await store.db.transaction().execute(async (trx) => {
      for (let j = 0; j < i; j++) if (statements[j]!.startsWith("SELECT")) await queryRows(trx, statements[j]!, params[j]! as never[]);
      const rows = await queryRows<{ "QUERY PLAN": unknown }>(
        trx,
        `EXPLAIN (ANALYZE, FORMAT JSON) ${statements[i]!}`,
        params[i]! as never[],
      );
      const out = rows[0]!["QUERY PLAN"];
      return (typeof out === "string" ? JSON.parse(out) : out) as { Plan: PlanNode }[];
    });
    const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
    const scans = nodes(plan[0]!.Plan).filter((n) => ["record_search", "records_fts"].includes(String(n["Relation Name"])));
    expect(scans.length, q).toBeGreaterThan(0);
    return scans.reduce(
      (sum, n) =>
        sum + Number(n["Actual Rows"] ?? 0) + Number(n["Rows Removed by Filter"] ?? 0) + Number(n["Rows Removed by Index Recheck"] ?? 0),
      0,
    );
  };

  /** Iterates a query's pages until an empty one (as the SDK does), each compared with the plain order's slice. */
  const iterate = async (text: PostgresText, q: string, datasetId = data.ids.ds) => {
    const order = await plain(q, datasetId);
    let offset = 0;
    for (;;) {
      const page = await text.search(query(q, offset, datasetId));
      expect(page.hits, `${q} at ${offset}`).toEqual(order.slice(offset, offset + 256));
      expect(page.total, `${q} at ${offset}`).toBe(order.length);
      if (page.hits.length === 0) return order.length;
      offset += 256;
    }
  };

  it("gives every page of the plain order: ties, a rarer word, no match, an empty query, another dataset", async () => {
    const text = new PostgresText(store.db);
    // "common" occurs 0-5 times in a record's text (ties at every count), "middle" in a fifth.
    expect(await iterate(text, "common")).toBeGreaterThan(2_000);
    expect(await iterate(text, "middle")).toBeGreaterThan(500);
    expect(await iterate(text, "rare")).toBeGreaterThan(5);
    expect(await iterate(text, "nowhereword")).toBe(0);
    expect(await iterate(text, "")).toBe(0);
    // The other dataset's records are never in this one's pages, nor the reverse.
    expect(await iterate(text, "common", data.ids.other)).toBeGreaterThan(300);
  }, 300_000);

  it("looks up the page's own records only, not every record before it", async () => {
    const text = new PostgresText(logged);
    await text.search(query("common", 0));
    params.length = 0;
    const page = await text.search(query("common", 1_792));
    expect(page.hits).toEqual((await plain("common")).slice(1_792, 2_048));
    // The seq arrays the page's statements were given: the page's 256 (reading 3 x (offset + limit) + 32 looked up 6,176).
    const arrays = params.flat().filter((p): p is string => typeof p === "string" && p.startsWith("{"));
    expect(arrays.length).toBeGreaterThan(0);
    for (const a of arrays) expect(a.split(",").length).toBeLessThanOrEqual(256);
  }, 300_000);

  it("gives every page of the plain order from a word's ranking ahead, shorter than its repeating records or not", async () => {
    for (const listLength of [64, 5_000]) {
      // Ranked again at the same version: the run of the other length forgotten.
      await sql`DELETE FROM text_ranked_ahead_runs WHERE dataset_id = ${data.ids.ds}`.execute(store.db);
      const rankAhead = new PostgresRankAhead(store.db, { minRecords: 5, listLength, firstRead: 16 });
      expect(await rankAhead.rank(data.ids.ds)).toBe(true);
      const text = new PostgresText(store.db, undefined, rankAhead);
      for (const q of ["common", "middle", "rare"]) expect(await iterate(text, q), `${q}, ${listLength}`).toBeGreaterThan(5);
      const common = await rankAhead.lookup(data.ids.ds, "common");
      expect(common!.repeated, `${listLength}`).toBeGreaterThan(listLength === 64 ? 64 : 0);
      if (listLength === 64) {
        // A page past a list shorter than the repeating records: null (every match ranked) without a statement.
        params.length = 0;
        expect(await pageAhead(logged, query("common", 64), "common", common!)).toBeNull();
        expect(params).toEqual([]);
      } else {
        // The list read on at a version ranked again meanwhile (a record added): null, not another version's records.
        expect(common!.listed).toBeGreaterThan(common!.seqs.length);
        await addTextRecords(store.db, data.ids.ds, [{ text: "common common", context: "x" }], "moved");
        expect(await rankAhead.rank(data.ids.ds)).toBe(true);
        expect(await pageAhead(store.db, query("common", 256), "common", common!)).toBeNull();
        expect(await iterate(new PostgresText(store.db, undefined, rankAhead), "common")).toBeGreaterThan(5);
      }
    }
  }, 300_000);

  it("scores a listed page from the stored occurrence counts, not the tsvectors, and lists without counts get them filled", async () => {
    await sql`DELETE FROM text_ranked_ahead_runs WHERE dataset_id = ${data.ids.ds}`.execute(store.db);
    const rankAhead = new PostgresRankAhead(logged, { minRecords: 5, listLength: 5_000, firstRead: 16 });
    expect(await rankAhead.rank(data.ids.ds)).toBe(true);
    // The page statements that score their records from the tsvectors (scored: each row's records_fts rows).
    const scoredFromTsvectors = () => statements.filter((s) => s.includes("f.record_seq = p.seq")).length;
    const iterateAll = async () => {
      for (const q of ["common", "middle", "rare"])
        expect(await iterate(new PostgresText(logged, undefined, rankAhead), q), q).toBeGreaterThan(5);
    };
    // Every list has its counts: every page (the listed records', then the single occurrences') scored without a tsvector.
    const counted = await queryRows<{ word: string; counts: number[] | null }>(
      store.db,
      "SELECT word, counts FROM text_ranked_ahead WHERE dataset_id = $1 ORDER BY word",
      [data.ids.ds],
    );
    expect(counted.length).toBeGreaterThan(2);
    for (const row of counted) expect(row.counts, row.word).not.toBeNull();
    const common = await rankAhead.lookup(data.ids.ds, "common");
    expect(common!.listed).toBeGreaterThan(1_000);
    expect(common!.repeated).toBe(common!.listed);
    statements.length = 0;
    await iterateAll();
    expect(statements.length).toBeGreaterThan(10);
    expect(scoredFromTsvectors()).toBe(0);
    // A database ranked before migration 0040: no counts, the pages scored from the tsvectors, the same answers.
    await sql`UPDATE text_ranked_ahead SET counts = NULL WHERE dataset_id = ${data.ids.ds} AND cardinality(seqs) > 0`.execute(store.db);
    statements.length = 0;
    await iterateAll();
    expect(scoredFromTsvectors()).toBeGreaterThan(0);
    // The background job fills them at the same version, the counts a ranking stores; then no tsvector again.
    const version = (await rankAhead.lookup(data.ids.ds, "common"))!.version;
    expect(await rankAhead.lengthen(data.ids.ds, version)).toBe(true);
    const filled = await queryRows<{ word: string; counts: number[] | null }>(
      store.db,
      "SELECT word, counts FROM text_ranked_ahead WHERE dataset_id = $1 ORDER BY word",
      [data.ids.ds],
    );
    expect(filled).toEqual(counted);
    expect(await rankAhead.lengthen(data.ids.ds, version)).toBe(false);
    statements.length = 0;
    await iterateAll();
    expect(scoredFromTsvectors()).toBe(0);
  }, 300_000);

  it("reads the single occurrences of a page without filters through the word's GIN entry, not every record before them", async () => {
    await sql`DELETE FROM text_ranked_ahead_runs WHERE dataset_id = ${data.ids.ds}`.execute(store.db);
    const rankAhead = new PostgresRankAhead(store.db, { minRecords: 5, listLength: 5_000 });
    expect(await rankAhead.rank(data.ids.ds)).toBe(true);
    const text = new PostgresText(logged, undefined, rankAhead);
    // "middle" occurs once in a field (never listed): every page's records are single occurrences; "common" is listed first.
    for (const [q, offset] of [
      ["middle", 512],
      ["common", 2_560],
    ] as const) {
      const ahead = (await rankAhead.lookup(data.ids.ds, q))!;
      expect(ahead.repeated, q).toBe(ahead.listed);
      expect(ahead.listed, q).toBeLessThan(offset);
      const order = await plain(q);
      expect(order.length, q).toBeGreaterThan(offset + 256);
      statements.length = 0;
      params.length = 0;
      const page = await text.search(query(q, offset));
      expect(page.hits, q).toEqual(order.slice(offset, offset + 256));
      const read = await singlesRead(q);
      expect(read, q).toBeGreaterThanOrEqual(offset + 256 - ahead.listed);
      // Every row it read matches the word (the walk of record_search in seq order read each record before the last one found).
      expect(read, q).toBeLessThanOrEqual(await rowsWith(q));
    }
    // The SDK iterating "middle" by offset: a page reads on from where the page before it ended, not every record before it.
    const iterating = new PostgresText(logged, undefined, rankAhead);
    for (let offset = 0; offset < 1_024; offset += 256) await iterating.search(query("middle", offset));
    statements.length = 0;
    params.length = 0;
    const last = await iterating.search(query("middle", 1_024));
    expect(last.hits).toEqual((await plain("middle")).slice(1_024, 1_280));
    expect(await singlesRead("middle")).toBeLessThan(1_024);
  }, 300_000);

  it("scores the rows from the page's offset on only", async () => {
    const b = new Builder(null);
    const rows = await queryRows<{ seq: number | string; score: number | null }>(
      store.db,
      scored(
        b,
        "common",
        `SELECT r.seq AS seq, r.id AS id, r.seq AS ord FROM records r WHERE r.dataset_id = ${b.p(data.ids.ds)} AND EXISTS (SELECT 1 FROM records_fts f
          WHERE f.record_seq = r.seq AND f.tsv @@ plainto_tsquery('tessera_search', 'common')) ORDER BY r.seq LIMIT 8`,
        3,
      ),
      b.params,
    );
    expect(rows).toHaveLength(8);
    expect(rows.slice(0, 3).map((r) => r.score)).toEqual([null, null, null]);
    for (const r of rows.slice(3)) expect(r.score).toBeGreaterThan(0);
  }, 60_000);

  it("gives the plain pages when records are added and deleted between pages", async () => {
    const text = new PostgresText(store.db);
    const deleteWhere = (ids: string[]) => sql`DELETE FROM records WHERE id IN (${sql.join(ids)})`.execute(store.db);
    /** Before the page at an offset: nothing, a record added, the dataset's first 3 records or one of the page's records deleted. */
    const changes: Record<number, () => Promise<unknown>> = {
      1_280: () => addTextRecords(store.db, data.ids.ds, [{ text: "common common common common", context: "x" }], "added"),
      1_792: async () =>
        deleteWhere(
          (await store.db.selectFrom("records").select("id").where("dataset_id", "=", data.ids.ds).orderBy("seq").limit(3).execute()).map(
            (r) => r.id,
          ),
        ),
      2_304: async () => deleteWhere([(await plain("common"))[2_304 + 5]!.recordId]),
    };
    for (let offset = 1_024; offset <= 2_560; offset += 256) {
      await changes[offset]?.();
      const page = await text.search(query("common", offset));
      expect(page.hits, `at ${offset}`).toEqual((await plain("common")).slice(offset, offset + 256));
      expect(page.hits.length, `at ${offset}`).toBe(256);
    }
  }, 300_000);
});
