import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { Builder, queryRows, textWords } from "./postgres-sql.js";
import { firstMatches, SEQ_BUCKET } from "./postgres-text-walk.js";
import { PostgresTextVocabulary } from "./postgres-text-vocabulary.js";
import type { SearchQuery } from "./search-port.js";
import { insertRecords, seedSearchData } from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

describe(`PostgreSQL text search: the first matching records in seq order (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let ds: string;
  let other: string;
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    const { ids } = await seedSearchData(store);
    ds = ids.ds;
    other = ids.other;
    // Dense words (every record: `common`, every other: `even`), sparse ones (every 37th: `rare`), a prefix family.
    const text = (i: number) =>
      `common ${i % 2 === 0 ? "even" : "odd"} ${i % 37 === 5 ? "rare even" : ""} ${i % 11 === 0 ? "prefixone" : i % 13 === 0 ? "prefixtwo" : "filler"}`;
    await insertRecords(store, ids.other, 50, (i) => ({
      external_id: `o-${i}`,
      fields: JSON.stringify({ text: text(i) }),
      metadata: "null",
    }));
    // The dataset's records in three runs over several buckets of the GIN index (SEQ_BUCKET seqs each), the
    // other dataset's records between them: the seq identity moved on between the runs.
    for (const [run, skip] of [
      [0, 0],
      [1, 2 * SEQ_BUCKET + 17],
      [2, 3 * SEQ_BUCKET],
    ] as const) {
      if (skip > 0) {
        await sql`SELECT setval(pg_get_serial_sequence('records', 'seq'), (SELECT max(seq) FROM records) + ${skip})`.execute(store.db);
        await insertRecords(store, ids.other, 5, (i) => ({
          external_id: `q-${run}-${i}`,
          fields: JSON.stringify({ text: "common rare even" }),
          metadata: "null",
        }));
      }
      await insertRecords(store, ds, 100, (j) => {
        const i = run * 100 + j;
        return {
          external_id: `d-${i}`,
          fields: JSON.stringify({ text: text(i), summary: i % 3 === 0 ? "rare summary" : "plain summary" }),
          metadata: "null",
        };
      });
    }
    await insertRecords(store, ids.other, 50, (i) => ({
      external_id: `p-${i}`,
      fields: JSON.stringify({ text: "rare common" }),
      metadata: "null",
    }));
  }, 180_000); // PGlite with every migration, then three runs of records: ~8 s on a quiet machine, past 60 s at load 15
  afterAll(async () => {
    await store?.close();
  });

  const query = (q: string, field: string | null, datasetId = ds): SearchQuery => ({
    datasetId,
    userId: null,
    text: { q, field },
    vector: null,
    sort: [],
    offset: 0,
    limit: 10,
    filters: [],
  });
  /** Every matching record of the dataset in seq order (a field matches every word). */
  const reference = async (q: string, field: string | null, datasetId = ds) => {
    const b = new Builder(null);
    const tsq = b.tsQuery(textWords(q));
    const rows = await queryRows<{ seq: number | string }>(
      store.db,
      `SELECT r.seq AS seq FROM records r WHERE r.dataset_id = ${b.p(datasetId)} AND EXISTS (SELECT 1 FROM records_fts f
        WHERE f.record_seq = r.seq AND f.tsv @@ (${tsq})${field ? ` AND f.field = ${b.p(field)}` : ""}) ORDER BY r.seq`,
      b.params,
    );
    return rows.map((r) => Number(r.seq));
  };

  it("gives the reference's first n matches and their scores through the probe, the walk, the buckets and the index alike", async () => {
    const paths = new Set<string>();
    for (const [q, field] of [
      ["common", null],
      ["even", null],
      ["rare even", null],
      ["even rare", null],
      ["rare", null],
      ["rare", "summary"],
      ["common summary", null],
      ["prefix*", null],
      ["prefixt*", null],
      ["common prefixo*", null],
      ["common rare", null],
      ["summary common", null],
      ["nothing", null],
      ["nothing*", null],
    ] as const) {
      const all = await reference(q, field);
      const b = new Builder(null);
      const tsq = b.tsQuery(textWords(q));
      const scoreOf = new Map(
        (
          await queryRows<{ seq: number | string; score: number }>(
            store.db,
            `SELECT f.record_seq AS seq, max(ts_rank(f.tsv, (${tsq})))::float8 AS score FROM records_fts f
              WHERE f.tsv @@ (${tsq})${field ? ` AND f.field = ${b.p(field)}` : ""} GROUP BY f.record_seq`,
            b.params,
          )
        ).map((r) => [Number(r.seq), r.score]),
      );
      for (const n of [7, 150, 1000])
        for (const options of [
          {},
          { firstBuckets: 1 },
          { firstBuckets: 2 },
          { firstBuckets: 1, maxRoundBuckets: 1, bucketRows: 0 },
          { path: "index" as const },
          { probeRows: 9 },
          { probeRows: 9, walkMinDensity: 0 },
          { probeRows: 9, walkMinDensity: 2 },
          // No valid bucket index yet (an upgraded database while the server builds it): words too take the probe, walk or index.
          { buckets: false },
          { buckets: false, probeRows: 9 },
          { buckets: false, probeRows: 9, walkMinDensity: 2 },
        ]) {
          const got = await firstMatches(store.db, query(q, field), n, options);
          expect(got.seqs, `${q} ${field} n=${n} ${JSON.stringify(options)} (${got.path})`).toEqual(all.slice(0, n));
          // The scores read with the matches: ts_rank of the best matching field, of every match whatever the path (the
          // window is never read again to rank it).
          expect(got.scores.size, `${q} scores (${got.path})`).toBe(got.seqs.length);
          for (const [seq, score] of got.scores) {
            expect(got.seqs).toContain(seq);
            expect(score, `${q} ${seq}`).toBeCloseTo(scoreOf.get(seq)!, 6);
          }
          paths.add(got.path);
          // From after a seq (the windows read before end there: postgres-text.ts extends them), between runs of the dataset too.
          if (n === 150)
            for (const after of [all[4], all[Math.floor(all.length / 2)], all[all.length - 1]]) {
              if (after === undefined) continue;
              const later = await firstMatches(store.db, query(q, field), n, { ...options, after });
              expect(later.seqs, `${q} after ${after} ${JSON.stringify(options)} (${later.path})`).toEqual(
                all.filter((seq) => seq > after).slice(0, n),
              );
              for (const [seq, score] of later.scores) expect(score).toBeCloseTo(scoreOf.get(seq)!, 6);
            }
        }
    }
    // Words: through the buckets (the first round one bucket); a query no record of the first bucket matches: the index.
    expect((await firstMatches(store.db, query("common", null), 40)).path).toBe("buckets");
    expect((await firstMatches(store.db, query("nothing", null), 40)).path).toBe("index");
    // A round of more buckets than a round may read: the index for the rest, the same matches.
    const capped = await firstMatches(store.db, query("rare even", null), 150, {
      firstBuckets: 2,
      maxRoundBuckets: 1,
      bucketRows: Infinity,
    });
    expect(capped.path).toBe("index");
    expect(capped.seqs).toEqual((await reference("rare even", null)).slice(0, 150));
    expect(
      (await firstMatches(store.db, query("rare even", null), 150, { firstBuckets: 1, maxRoundBuckets: 1, bucketRows: Infinity })).path,
    ).toBe("index");
    // A round beyond the cap still reads buckets when they cost less than the heap rows of every match left (a bucket
    // counted as bucketRows rows), else the index.
    for (const [bucketRows, path] of [
      [0, "buckets"],
      [Infinity, "index"],
    ] as const) {
      const got = await firstMatches(store.db, query("common", null), 150, { firstBuckets: 1, maxRoundBuckets: 1, bucketRows });
      expect(got.path).toBe(path);
      expect(got.seqs).toEqual((await reference("common", null)).slice(0, 150));
    }
    // Without a valid bucket index words take the prefixes' paths.
    expect((await firstMatches(store.db, query("common", null), 40, { buckets: false })).path).toBe("probe");
    expect((await firstMatches(store.db, query("rare even", null), 40, { buckets: false, probeRows: 9, walkMinDensity: 2 })).path).toBe(
      "index",
    );
    expect((await firstMatches(store.db, query("rare even", null), 40, { buckets: false, probeRows: 9, walkMinDensity: 0 })).path).toBe(
      "walk",
    );
    // A prefix: the probe of 9 rows, then the walk (dense) or the index (sparse), forced either way by the density.
    expect((await firstMatches(store.db, query("prefix*", null), 40, { probeRows: 9, walkMinDensity: 0 })).path).toBe("walk");
    expect((await firstMatches(store.db, query("prefix*", null), 40, { probeRows: 9, walkMinDensity: 2 })).path).toBe("index");
    expect((await firstMatches(store.db, query("prefix*", null), 40)).path).toBe("probe"); // 600 rows: all in the default probe
    expect([...paths].sort()).toEqual(["buckets", "index", "probe", "walk"]);
  }, 180_000);

  it("reads a prefix as the words of the dataset's vocabulary through the buckets, at the vocabulary's version only", async () => {
    const vocabulary = new PostgresTextVocabulary(store.db, { minRecords: 1, settleMs: 0 });
    const queries = [
      ["prefix*", null],
      ["prefixt*", null],
      ["common prefixo*", null],
      ["prefixo*", "text"],
      ["nothing*", null],
    ] as const;
    const same = async (expanded: boolean) => {
      for (const [q, field] of queries) {
        const all = await reference(q, field);
        for (const n of [7, 150, 1000])
          for (const options of [{}, { firstBuckets: 1 }, { path: "index" as const }]) {
            const got = await firstMatches(store.db, query(q, field), n, { ...options, vocabulary });
            const label = `${q} ${field} n=${n} ${JSON.stringify(options)} (${got.path}, ${got.expanded})`;
            expect(got.seqs, label).toEqual(all.slice(0, n));
            expect(got.scores.size, label).toBe(got.seqs.length);
            expect(got.expanded, label).toBe(expanded);
            if (expanded) expect(["buckets", "index"], label).toContain(got.path);
          }
      }
    };
    // Not read yet: the probe and the walk.
    await same(false);
    // Read by the background look once the version settled (two looks), then through the buckets.
    await vocabulary.tick();
    await vocabulary.tick();
    expect(vocabulary.size).toBeGreaterThan(0);
    await same(true);
    // Another dataset's words are not the dataset's.
    await insertRecords(store, other, 1, () => ({
      external_id: "x-1",
      fields: JSON.stringify({ text: "prefixelsewhere common" }),
      metadata: "null",
    }));
    const version = Number(
      (
        await queryRows<{ v: string }>(store.db, "SELECT coalesce(max(id), 0) AS v FROM text_search_changes WHERE dataset_id = $1", [ds])
      )[0]!.v,
    );
    expect(vocabulary.expand(ds, version, "prefix")).toEqual(["prefixone", "prefixtwo"]);
    await same(true);
    // A record with a new word of the prefix moves the version: the vocabulary is not used until read again, the new record found either way.
    await insertRecords(store, ds, 1, () => ({
      external_id: "d-new",
      fields: JSON.stringify({ text: "common prefixnew prefixone" }),
      metadata: "null",
    }));
    await same(false);
    await vocabulary.read(ds);
    await same(true);
    // More covered words than a round reads as words (MAX_EXPANSION): the probe.
    const many = Array.from({ length: 70 }, (_, i) => `manyword${i}`).join(" ");
    await insertRecords(store, ds, 1, () => ({ external_id: "d-many", fields: JSON.stringify({ text: many }), metadata: "null" }));
    await vocabulary.read(ds);
    const got = await firstMatches(store.db, query("manyword*", null), 10, { vocabulary });
    expect(got.expanded).toBe(false);
    expect(got.seqs).toEqual(await reference("manyword*", null));
    expect((await firstMatches(store.db, query("manyword1*", null), 10, { vocabulary })).expanded).toBe(true);
  }, 180_000);

  it("reads the buckets of a phrase a round after the other, and nothing of another dataset", async () => {
    // Few matches per bucket: one bucket, then the rounds grow until the 150th match (the third run of records).
    const got = await firstMatches(store.db, query("rare even", null), 150, { firstBuckets: 1 });
    expect(got.seqs).toEqual((await reference("rare even", null)).slice(0, 150));
    const others = await queryRows<{ n: number | string }>(
      store.db,
      `SELECT count(*) AS n FROM records WHERE dataset_id <> $1 AND seq = ANY($2::bigint[])`,
      [ds, `{${got.seqs.join(",")}}`],
    );
    expect(Number(others[0]!.n)).toBe(0);
  });

  it("reads the matches of a dataset that holds every seq of its range without looking up their records, the same matches", async () => {
    // A dataset whose records were written alone (contiguous seqs), after the others.
    const alone = randomUUID();
    await sql`CREATE TEMP TABLE alone_ds AS SELECT * FROM datasets WHERE id = ${ds}`.execute(store.db);
    await sql`UPDATE alone_ds SET id = ${alone}, name = ${`alone-${alone}`}`.execute(store.db);
    await sql`INSERT INTO datasets SELECT * FROM alone_ds`.execute(store.db);
    const text = (i: number) =>
      `common ${i % 2 === 0 ? "even" : "odd"} ${i % 29 === 3 ? "rare even" : ""} ${i % 7 === 0 ? "prefixone" : "filler"}`;
    const records = await insertRecords(store, alone, 400, (i) => ({
      external_id: `a-${i}`,
      fields: JSON.stringify({ text: text(i), summary: i % 3 === 0 ? "rare summary" : "plain summary" }),
      metadata: "null",
    }));
    const same = async (own: boolean) => {
      for (const [q, field] of [
        ["common", null],
        ["rare even", null],
        ["rare", "summary"],
        ["prefix*", null],
        ["common prefixo*", null],
        ["nothing", null],
      ] as const) {
        const all = await reference(q, field, alone);
        for (const n of [7, 150, 1000])
          for (const options of [
            {},
            { firstBuckets: 1 },
            { path: "index" as const },
            { probeRows: 9, walkMinDensity: 0 },
            { buckets: false, probeRows: 9, walkMinDensity: 2 },
          ]) {
            const got = await firstMatches(store.db, query(q, field, alone), n, options);
            expect(got.seqs, `${q} ${field} n=${n} ${JSON.stringify(options)} (${got.path})`).toEqual(all.slice(0, n));
            expect(got.own).toBe(own);
          }
      }
    };
    await same(true);
    // The interleaved dataset is looked up record by record.
    expect((await firstMatches(store.db, query("common", null), 10)).own).toBe(false);
    // A record deleted inside its range: as many records as seqs no more, every match looked up.
    await store.db.deleteFrom("records").where("id", "=", records[200]!.id).execute();
    await same(false);
  }, 180_000);
});
