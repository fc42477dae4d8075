import { Kysely, PostgresDialect } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../db/postgres.js";
import type { DB } from "../db/schema.js";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { addTextRecords } from "../testing/text-records.js";
import { occurrenceScoreSql } from "./postgres-occurrence-score.js";
import { queryRows, textVersion } from "./postgres-sql.js";
import type { RankedAhead } from "./postgres-rank-ahead.js";
import { singleOccurrences, singlesPage } from "./postgres-text-singles.js";
import type { SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

/**
 * The single occurrences of a word after its listed records, read through `records_fts`'s buckets round after round: the same
 * records as the plain statement (the dataset's records that match, not listed, in seq order), with a word whose records all
 * come after many records without it (the first round, sized by the word's density over the dataset, holds none), another
 * dataset's records of the word inside the dataset's range of seqs, fewer records than asked, and a moved text version.
 */
describe(`PostgreSQL text search: a word's single occurrences (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let db: Kysely<DB>;
  /** The statements run through `db` (a pool of its own on PostgreSQL, logged). */
  const statements: string[] = [];
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  /** The dataset's records with the word twice in a field: the list the single occurrences exclude. */
  let listed: number[] = [];
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    ids = (await seedSearchData(store)).ids;
    db = onPostgres
      ? new Kysely<DB>({
          dialect: new PostgresDialect({ pool: createPool(store.databaseUrl!, 2) }),
          log: (event) => {
            if (event.level === "query") statements.push(event.query.sql);
          },
        })
      : store.db;
    const filler = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `filler number ${i}`, context: "nothing" }));
    // 4,000 records without the word, 300 of the other dataset with it, then 1,000 with it (every 10th twice in its text).
    await addTextRecords(store.db, ids.ds, filler(4_000), "before");
    await addTextRecords(
      store.db,
      ids.other,
      Array.from({ length: 300 }, () => ({ text: "late arrival", context: "late" })),
      "other",
    );
    await addTextRecords(
      store.db,
      ids.ds,
      Array.from({ length: 1_000 }, (_, i) =>
        i % 10 === 0 ? { text: "late and late", context: "x" } : { text: "late", context: "late x" },
      ),
      "late",
    );
    listed = (
      await queryRows<{ seq: number | string }>(
        store.db,
        "SELECT seq FROM records WHERE dataset_id = $1 AND fields->>'text' = 'late and late' ORDER BY seq",
        [ids.ds],
      )
    ).map((r) => Number(r.seq));
  }, 300_000);
  afterAll(async () => {
    if (db !== store?.db) await db?.destroy();
    await store?.close();
  });

  const query = (q: string): SearchQuery => ({
    datasetId: ids.ds,
    userId: null,
    vector: null,
    filters: [],
    sort: [],
    text: { q, field: null },
    offset: 0,
    limit: 256,
  });

  /** The plain statement's records: the dataset's records that match, not listed, in seq order, the first `n`. */
  const plain = async (word: string, n: number) =>
    (
      await queryRows<{ seq: number | string; id: string }>(
        store.db,
        `SELECT r.seq, r.id FROM records r WHERE r.dataset_id = $1 AND EXISTS (SELECT 1 FROM records_fts f
          WHERE f.record_seq = r.seq AND f.tsv @@ plainto_tsquery('tessera_search', $2)) AND NOT (r.seq = ANY($3::bigint[]))
          ORDER BY r.seq LIMIT $4`,
        [ids.ds, word, `{${listed.join(",")}}`, n],
      )
    ).map((r) => ({ seq: Number(r.seq), id: r.id }));

  const density = async (word: string) => ({
    version: await textVersion(store.db, ids.ds),
    matches: Number(
      (
        await queryRows<{ n: number | string }>(
          store.db,
          `SELECT count(DISTINCT f.record_seq) AS n FROM records_fts f JOIN records r ON r.seq = f.record_seq
            WHERE r.dataset_id = $1 AND f.tsv @@ plainto_tsquery('tessera_search', $2)`,
          [ids.ds, word],
        )
      )[0]!.n,
    ),
  });

  it("gives the plain statement's records, ids and one occurrence's score from `skip` on, round after round", async () => {
    const one = (await queryRows<{ score: number }>(store.db, `SELECT ${occurrenceScoreSql("1")} AS score`, []))[0]!.score;
    const expected = await plain("late", 200);
    expect(expected).toHaveLength(200);
    statements.length = 0;
    const found = await singleOccurrences(db, query("late"), "late", listed, 200, 120, await density("late"));
    expect(found!.map((r) => r.seq)).toEqual(expected.map((r) => r.seq));
    expect(found!.slice(0, 120).map((r) => [r.id, r.score])).toEqual(Array.from({ length: 120 }, () => [null, null]));
    expect(found!.slice(120).map((r) => [r.id, r.score])).toEqual(expected.slice(120).map((r) => [r.id, one]));
    // The other dataset's records of the word (inside this one's range) are not among them, nor the listed ones.
    for (const r of found!) expect(listed).not.toContain(r.seq);
    // The first round (the word's density over the whole dataset) held none of them: read on in another.
    if (onPostgres) expect(statements.filter((s) => s.includes("records_fts f")).length).toBeGreaterThan(1);
  }, 120_000);

  it("reads each page of them from where the pages read before end (singlesPage), the same records", async () => {
    const one = (await queryRows<{ score: number }>(store.db, `SELECT ${occurrenceScoreSql("1")} AS score`, []))[0]!.score;
    const all = (await plain("late", 10_000)).map((r) => ({ ...r, score: one }));
    const d = await density("late");
    const ahead: RankedAhead = { version: d.version, records: d.matches, repeated: 100, listed: 100, seqs: listed, counts: null };
    const page = async (skip: number, n = skip + 256) =>
      (await singlesPage(db, query("late"), "late", ahead, n, skip))!.map((r) => ({ seq: r.seq, id: r.id, score: r.score }));
    for (let skip = 0; skip < 1_000; skip += 256) expect(await page(skip), `${skip}`).toEqual(all.slice(skip, skip + 256));
    // Where each page's records end: the next page read from there.
    expect(ahead.singles).toEqual([256, 512, 768, 900].map((count) => ({ count, seq: all[count - 1]!.seq })));
    // A page before the furthest point, from the point at or before it; a page starting among the listed records (skip < 0).
    expect(await page(300, 600)).toEqual(all.slice(300, 600));
    expect(await page(-56, 200)).toEqual(all.slice(0, 200));
    expect(ahead.singles!.map((p) => p.count)).toEqual([200, 256, 512, 600, 768, 900]);
    // At another text version: null, whatever was read.
    expect(await singlesPage(db, query("late"), "late", { ...ahead, version: d.version - 1 }, 256, 0)).toBeNull();
  }, 120_000);

  it("gives every record when fewer than asked, none for 0, and null at another text version", async () => {
    const all = await plain("late", 10_000);
    expect(all).toHaveLength(900);
    const d = await density("late");
    const found = await singleOccurrences(db, query("late"), "late", listed, 5_000, 0, d);
    expect(found!.map((r) => ({ seq: r.seq, id: r.id }))).toEqual(all);
    expect(await singleOccurrences(db, query("late"), "late", listed, 0, 0, d)).toEqual([]);
    expect(await singleOccurrences(db, query("nowhereword"), "nowhereword", [], 10, 0, { ...d, matches: 1 })).toEqual([]);
    expect(await singleOccurrences(db, query("late"), "late", listed, 10, 0, { ...d, version: d.version - 1 })).toBeNull();
  }, 120_000);
});
