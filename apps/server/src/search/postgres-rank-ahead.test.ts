import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { occurrenceScoreSql } from "./postgres-occurrence-score.js";
import { PostgresSearch } from "./postgres-search.js";
import { queryRows } from "./postgres-sql.js";
import type { SearchQuery } from "./search-port.js";
import {
  seedSearchData,
  answerAndComplete,
  insertRecords,
  expectSameOrLowerTotal,
  TEST_FILTERS,
  answerWhere,
  completeWhere,
} from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;
const VOCABULARY = ["alpha", "beta", "gamma", "delta", "omega", "rare"];

/** Deterministic texts in which the words repeat 1 to ~6 times per field, many records tying. */
function textOf(i: number, salt: number): string {
  const words: string[] = [];
  for (const [k, word] of VOCABULARY.entries()) {
    const x = (i * 7 + k * 13 + salt * 5) % 17;
    const times = word === "rare" ? (i % 40 === 0 ? 1 : 0) : x < 5 ? 0 : x < 12 ? 1 : x - 10;
    for (let t = 0; t < times; t++) words.push(word);
    words.push(`filler${(i + k) % 9}`);
  }
  return words.join(" ");
}

const { pending, statusPending, genre } = TEST_FILTERS;

describe(`PostgreSQL frequent words ranked ahead (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  const insert = (datasetId: string, from: number, n: number, salt = 0) =>
    insertRecords(store, datasetId, n, (j) => ({
      external_id: `r-${salt}-${from + j}`,
      fields: JSON.stringify({ text: textOf(from + j, salt), summary: textOf(from + j, salt + 1) }),
      metadata: JSON.stringify({ genre: (from + j) % 3 === 0 ? "news" : "blog" }),
    }));

  it("ts_rank of one word grows strictly with its positions in a field (what the ranking ahead relies on)", async () => {
    const rows = (
      await sql<{ c: number; score: number }>`select (select cardinality(u.positions) from unnest(v.tsv) u where u.lexeme = 'zeta') as c,
        ts_rank(v.tsv, plainto_tsquery('tessera_search', 'zeta'))::float8 as score
      from generate_series(1, 300) n, lateral (select to_tsvector('tessera_search', repeat('zeta other ', n) || 'end') as tsv) v order by n`.execute(
        store.db,
      )
    ).rows;
    expect(rows[0]!.c).toBe(1);
    expect(rows.at(-1)!.c).toBe(255); // a tsvector keeps at most 255 positions of a lexeme
    for (let i = 1; i < rows.length; i++) {
      if (rows[i]!.c > rows[i - 1]!.c) expect(rows[i]!.score, `c=${rows[i]!.c}`).toBeGreaterThan(rows[i - 1]!.score);
      else expect(rows[i]!.score).toBe(rows[i - 1]!.score);
    }
  });

  it("scores a word from its occurrences (occurrenceScoreSql) as the search's best-field ts_rank of real texts, bit for bit, at every count a tsvector keeps", async () => {
    // Two fields per text: the word n times among other words in one (case folded by to_tsvector), fewer times in the other.
    const rows = await queryRows<{ n: number; occurrences: number; search: number }>(
      store.db,
      `WITH t AS (SELECT n, to_tsvector('tessera_search', repeat('Zeta other words ', n) || 'end') AS a,
          to_tsvector('tessera_search', repeat('zeta x ', n / 3) || 'tail zeta') AS b FROM generate_series(1, 300) n),
        f AS (SELECT n, a AS tsv FROM t UNION ALL SELECT n, b FROM t),
        q AS (SELECT plainto_tsquery('tessera_search', 'zeta') AS query)
       SELECT f.n, max((SELECT cardinality(u.positions) FROM unnest(f.tsv) u WHERE u.lexeme = 'zeta')) AS occurrences,
         max(ts_rank(f.tsv, q.query))::float8 AS search
       FROM f, q WHERE f.tsv @@ q.query GROUP BY f.n ORDER BY f.n`,
      [],
    );
    expect(rows).toHaveLength(300);
    const counted = await queryRows<{ occurrences: number; score: number }>(
      store.db,
      `SELECT o AS occurrences, ${occurrenceScoreSql("o")} AS score FROM generate_series(1, 255) o`,
      [],
    );
    const byCount = new Map(counted.map((r) => [r.occurrences, r.score]));
    expect(new Set(rows.map((r) => r.occurrences)).size).toBe(255);
    for (const row of rows) expect(byCount.get(row.occurrences), `n=${row.n}, ${row.occurrences} occurrences`).toBe(row.search);
  });

  it("answers every page and bounded total as the plain ts_rank query, before and after writes, and is the path searches take", async () => {
    const { ids } = await seedSearchData(store);
    const ds = ids.ds;
    const added = await insert(ds, 0, 240);
    await insert(ids.other, 0, 30, 3); // another dataset's records never mix in
    // u1 answered some records, some are completed.
    await answerAndComplete(store, added, ids.u1);

    const options = { minRecords: 5, listLength: 12 };
    const ahead = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: options });
    const plain = new PostgresSearch(store.db, { vectorSearch: false, textCache: false });
    const queries: SearchQuery[] = [];
    for (const userId of [null, ids.u1])
      for (const filters of [[], [pending], [pending, statusPending], [statusPending], [pending, statusPending, genre]])
        for (const q of ["alpha", "Gamma", "omega", "rare", "filler3"])
          for (const [offset, limit] of [
            [0, 10],
            [10, 10],
            [0, 40],
            [95, 10],
          ] as const)
            for (const totalBound of [null, 30, 10_000])
              queries.push({ datasetId: ds, userId, text: { q, field: null }, vector: null, filters, sort: [], offset, limit, totalBound });
    const same = async (label: string) => {
      for (const q of queries) expectSameOrLowerTotal(await ahead.search(q), await plain.search(q), q, `${label}: ${JSON.stringify(q)}`);
    };
    const stored = async () =>
      (
        await sql<{
          word: string;
          version: number;
          records: number;
          repeated: number;
          seqs: string[];
        }>`select word, version, records, repeated, seqs from text_ranked_ahead where dataset_id = ${ds} order by word`.execute(store.db)
      ).rows;

    expect(await ahead.rankAhead!.rank(ds)).toBe(true);
    const rows = await stored();
    expect(rows.map((r) => r.word)).toEqual(expect.arrayContaining(["'alpha'", "'gamma'", "'omega'", "'filler3'"]));
    expect(rows.find((r) => r.word === "'rare'")).toBeDefined(); // 6 records: over minRecords 5
    // Some words repeat in more records than listed (their deep pages rank every match), some in fewer.
    expect(rows.some((r) => r.repeated > 12)).toBe(true);
    expect(rows.some((r) => r.repeated <= 12)).toBe(true);
    // A second replica does not rank the version again.
    expect(await new PostgresSearch(store.db, { vectorSearch: false, rankAhead: options }).rankAhead!.rank(ds)).toBe(false);
    await same("ranked");

    // The searches read the stored rows: a tampered row changes the answer (restored after).
    const alpha = rows.find((r) => r.word === "'alpha'")!;
    const query: SearchQuery = { ...queries[0]!, text: { q: "alpha", field: null }, filters: [], offset: 0, limit: 3, totalBound: 10_000 };
    const fresh = () => new PostgresSearch(store.db, { vectorSearch: false, rankAhead: options });
    const reversed = [...alpha.seqs].reverse();
    await sql`update text_ranked_ahead set seqs = ${`{${reversed.join(",")}}`}::bigint[], records = 7 where dataset_id = ${ds} and word = ${"'alpha'"}`.execute(
      store.db,
    );
    const tampered = await fresh().search(query);
    expect(tampered.total).toBe(7);
    expect(tampered).not.toEqual(await plain.search(query));
    await sql`update text_ranked_ahead set seqs = ${`{${alpha.seqs.join(",")}}`}::bigint[], records = ${alpha.records} where dataset_id = ${ds} and word = ${"'alpha'"}`.execute(
      store.db,
    );
    expect(await fresh().search(query)).toEqual(await plain.search(query));

    // Responses and status changes leave the text version (and the rows) as they are: the filters apply per search.
    await answerWhere(store, added, (i) => i % 5 === 1, ids.u1, "draft");
    await completeWhere(store, added, (i) => i % 11 === 0);
    await same("after responses and status changes");

    // Records added (one repeating a frequent word most of all), changed and deleted: the rows are retired...
    const top = await store.db
      .insertInto("records")
      .values({
        id: randomUUID(),
        dataset_id: ds,
        external_id: "top",
        fields: JSON.stringify({ text: "alpha ".repeat(30), summary: "x" }),
        metadata: JSON.stringify({ genre: "news" }),
        status: "pending",
        inserted_at: "t",
        updated_at: "t",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await insert(ds, 240, 20, 9);
    await store.db
      .updateTable("records")
      .set({ fields: JSON.stringify({ text: "gamma gamma gamma gamma gamma gamma gamma gamma", summary: "omega" }) })
      .where("id", "=", added[17]!.id)
      .execute();
    await store.db
      .deleteFrom("records")
      .where(
        "id",
        "in",
        added.filter((_, i) => i % 13 === 2).map((r) => r.id),
      )
      .execute();
    await same("after writes, before ranking again");
    expect((await ahead.search(query)).hits[0]!.recordId).toBe(top.id);
    // ... and ranked again at the new version.
    expect(await ahead.rankAhead!.rank(ds)).toBe(true);
    const version = Number(
      (await sql<{ v: number }>`select max(id) as v from text_search_changes where dataset_id = ${ds}`.execute(store.db)).rows[0]!.v,
    );
    expect(new Set((await stored()).map((r) => Number(r.version)))).toEqual(new Set([version]));
    await same("ranked again");
    expect((await ahead.search(query)).hits[0]!.recordId).toBe(top.id);
  }, 240_000);

  it("ranks a dataset once its text version settles, in the background, and stops cleanly", async () => {
    const { ids } = await seedSearchData(store);
    await insert(ids.ds, 0, 40, 4);
    const search = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: { minRecords: 5, settleMs: 50, tickMs: 20 } });
    search.rankAhead!.start();
    const deadline = Date.now() + 30_000;
    let n = 0;
    while (Date.now() < deadline) {
      n = Number(
        (
          await sql<{
            n: number;
          }>`select count(*) as n from text_ranked_ahead_runs where dataset_id = ${ids.ds} and finished_at is not null`.execute(store.db)
        ).rows[0]!.n,
      );
      if (n > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await search.rankAhead!.stop();
    expect(n).toBe(1);
    expect(
      Number(
        (await sql<{ n: number }>`select count(*) as n from text_ranked_ahead where dataset_id = ${ids.ds}`.execute(store.db)).rows[0]!.n,
      ),
    ).toBeGreaterThan(0);
  }, 60_000);
});
