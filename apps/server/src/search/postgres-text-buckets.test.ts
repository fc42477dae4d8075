import { type Kysely, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUCKET_INDEX_SQL, up } from "../db/migrations/postgres/0030-records-fts-seq-buckets.js";
import { up as up0042 } from "../db/migrations/postgres/0042-records-fts-bucket-index-dropped.js";
import { FIELD_INDEX_SPEC } from "../db/migrations/postgres/0037-records-fts-field.js";
import type { Store } from "../db/store.js";
import { advisoryKey } from "../reservations/transaction.js";
import { indexesOf, indexScans, openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { PostgresSearch } from "./postgres-search.js";
import { PostgresTextBuckets } from "./postgres-text-buckets.js";
import { textFieldIndex } from "./postgres-text-field.js";
import { SEQ_BUCKET } from "./postgres-text-walk.js";
import type { SearchQuery } from "./search-port.js";
import { insertRecords, seedSearchData, TEST_FILTERS, answerWhere } from "./search-port.suite.js";

const words = ["amber", "birch", "cedar", "delta", "ember"];
const text = (i: number) =>
  `${words[i % 5]} ${words[(i * 2 + 1) % 5]} ${i % 2 === 0 ? "even" : "odd"} ${"pad ".repeat(i % 4)}${i % 11 === 0 ? "rare amber" : ""}`;

/**
 * An upgraded database's `records_fts` bucket index (migration 0030), built in the background with
 * CREATE INDEX CONCURRENTLY: on a real PostgreSQL only (PGlite runs one connection, and has no
 * concurrent builds to show).
 */
describe.skipIf(!testDatabaseUrl())("PostgreSQL: records_fts's bucket index built in the background (migration 0030)", () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  // Migration 0037's index of the fields' names aside (postgres-text-field.test.ts).
  const indexes = async () => (await indexesOf(store.db, "records_fts")).filter((i) => !i.startsWith(FIELD_INDEX_SPEC.index));

  beforeAll(async () => {
    store = await openTestPostgresStore();
    data = await seedSearchData(store);
    // The dataset's records over several buckets, the other dataset's between them.
    for (const run of [0, 1, 2]) {
      if (run > 0) {
        await sql`SELECT setval(pg_get_serial_sequence('records', 'seq'), (SELECT max(seq) FROM records) + ${SEQ_BUCKET + 5})`.execute(
          store.db,
        );
        await insertRecords(store, data.ids.other, 5, (i) => ({
          external_id: `o-${run}-${i}`,
          fields: JSON.stringify({ text: "amber birch even rare" }),
          metadata: "null",
        }));
      }
      const added = await insertRecords(store, data.ids.ds, 80, (j) => ({
        external_id: `b-${run}-${j}`,
        fields: JSON.stringify({ text: text(run * 80 + j), context: j % 3 === 0 ? "cedar ember" : "plain" }),
        metadata: JSON.stringify({ genre: j % 2 === 0 ? "news" : "blog" }),
      }));
      await answerWhere(store, added, (j) => j % 4 === 0, data.ids.u1, "submitted");
    }
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const { pending, genre } = TEST_FILTERS;
  const queries = (): SearchQuery[] =>
    [
      { q: "amber birch", field: null },
      { q: "birch amber even", field: null },
      { q: "rare amber", field: null },
      { q: "cedar ember", field: "context" },
      { q: "amber", field: "text" },
      { q: "amb* even", field: null },
      { q: "nothing here", field: null },
      { q: "", field: null },
    ].flatMap((t) =>
      [[], [pending], [genre]].flatMap((filters) =>
        [data.ids.ds, data.ids.other].flatMap((datasetId) =>
          [
            [0, 10],
            [12, 50],
          ].map(([offset, limit]) => ({
            datasetId,
            userId: filters.length > 0 ? data.ids.u1 : null,
            text: t,
            vector: null,
            sort: [],
            offset: offset!,
            limit: limit!,
            filters,
          })),
        ),
      ),
    );
  /** Every query through a fresh adapter (no cached matches) equals the plain SQL path's answer. */
  const sameAsPlain = async (bucketsReady: boolean) => {
    const plain = new PostgresSearch(store.db, { vectorSearch: false, textCache: false, rankAhead: false });
    const cached = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false });
    expect(await cached.textBuckets.ready()).toBe(bucketsReady);
    for (const q of queries()) {
      const expected = await plain.search(q);
      expect(await cached.search(q), JSON.stringify(q)).toEqual(expected);
    }
    // The queries find something: the comparison is not of empty pages.
    expect((await plain.search(queries()[0]!)).total).toBeGreaterThan(20);
  };

  it("answers identically with the words-only index, during the concurrent build, and with the bucket index; writes go on during the build", async () => {
    // A new database: the index with the fields' names (0037) serves the buckets' lookups, the bucket index is dropped (0042).
    expect(await indexesOf(store.db, "records_fts")).toEqual([FIELD_INDEX_SPEC.index]);
    // A database as before 0030's build: the words-only index of 0003 (and no index with the fields' names, built after
    // the bucket index's). The migration leaves a table with rows alone.
    await sql.raw(`DROP INDEX ${FIELD_INDEX_SPEC.index}`).execute(store.db);
    await sql`CREATE INDEX records_fts_tsv_gin ON records_fts USING gin (tsv)`.execute(store.db);
    await up(store.db as unknown as Kysely<unknown>);
    expect(await indexes()).toEqual(["records_fts_tsv_gin"]);
    await sameAsPlain(false);

    // The build waits for a transaction that writes records_fts (CREATE INDEX CONCURRENTLY waits for every writer
    // once its invalid index is in the catalog): searches meanwhile keep the words-only index.
    const writer = new pg.Client({ connectionString: store.databaseUrl! });
    await writer.connect();
    const job = new PostgresTextBuckets(store.db, { replacedMs: 60_000 });
    let build: Promise<void> | null = null;
    try {
      await writer.query("BEGIN");
      await writer.query("LOCK TABLE records_fts IN ROW EXCLUSIVE MODE");
      build = job.tick();
      await expect.poll(indexes, { timeout: 20_000 }).toEqual(["records_fts_tsv_gin", "records_fts_tsv_seq_gin (invalid)"]);
      await sameAsPlain(false);
      // Another transaction's write to records_fts is not held by the build (it would wait for the whole build in the migration).
      await insertRecords(store, data.ids.ds, 3, (i) => ({
        external_id: `during-${i}`,
        fields: JSON.stringify({ text: "amber birch during" }),
        metadata: "null",
      }));
      await sameAsPlain(false);
    } finally {
      await writer.query("ROLLBACK");
      await writer.end();
    }
    await build;
    expect(await indexes()).toEqual(["records_fts_tsv_gin", "records_fts_tsv_seq_gin"]);
    expect(await job.ready()).toBe(true);
    await sameAsPlain(true);
    // The searches read the new index once it is valid.
    const scans = () => indexScans(store.db, "records_fts_tsv_seq_gin");
    await expect.poll(scans, { timeout: 10_000 }).toBeGreaterThan(0);
    // The words-only index is kept REPLACED_MS after the new one is valid, then dropped.
    await job.tick();
    expect(await indexes()).toEqual(["records_fts_tsv_gin", "records_fts_tsv_seq_gin"]);
    await new PostgresTextBuckets(store.db, { replacedMs: 0 }).tick();
    expect(await indexes()).toEqual(["records_fts_tsv_seq_gin"]);
    await sameAsPlain(true);
  }, 180_000);

  it("builds again an index a stopped build left invalid, and a replica finding the build's lock taken leaves it to its holder", async () => {
    // As before the field index's build (it would count as the bucket index: the third test).
    await sql.raw(`DROP INDEX IF EXISTS ${FIELD_INDEX_SPEC.index}`).execute(store.db);
    await sql`DROP INDEX IF EXISTS records_fts_tsv_seq_gin`.execute(store.db);
    await sql`CREATE INDEX IF NOT EXISTS records_fts_tsv_gin ON records_fts USING gin (tsv)`.execute(store.db);
    // A build cancelled after its catalog entry (a writer holds it; stop cancels the build): an invalid index remains.
    const writer = new pg.Client({ connectionString: store.databaseUrl! });
    await writer.connect();
    try {
      await writer.query("BEGIN");
      await writer.query("LOCK TABLE records_fts IN ROW EXCLUSIVE MODE");
      const stopped = new PostgresTextBuckets(store.db);
      stopped.start();
      await expect.poll(indexes, { timeout: 20_000 }).toEqual(["records_fts_tsv_gin", "records_fts_tsv_seq_gin (invalid)"]);
      await stopped.stop();
    } finally {
      await writer.query("ROLLBACK");
      await writer.end();
    }
    expect(await indexes()).toEqual(["records_fts_tsv_gin", "records_fts_tsv_seq_gin (invalid)"]);
    await sameAsPlain(false);
    // Another replica holds the build's lock: this one builds nothing.
    const holder = new pg.Client({ connectionString: store.databaseUrl! });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${advisoryKey("text-index:records_fts_tsv_seq_gin")})`);
      await new PostgresTextBuckets(store.db).tick();
      expect(await indexes()).toEqual(["records_fts_tsv_gin", "records_fts_tsv_seq_gin (invalid)"]);
    } finally {
      await holder.query("SELECT pg_advisory_unlock_all()");
      await holder.end();
    }
    const job = new PostgresTextBuckets(store.db, { replacedMs: 0 });
    await job.tick();
    expect(await indexes()).toEqual(["records_fts_tsv_gin", "records_fts_tsv_seq_gin"]);
    await job.tick();
    expect(await indexes()).toEqual(["records_fts_tsv_seq_gin"]);
    await sameAsPlain(true);
  }, 180_000);

  it("drops the bucket index once the index with the fields' names is valid (migration 0042, the field index's build) and does not build it again", async () => {
    const all = () => indexesOf(store.db, "records_fts");
    const fieldScans = () => indexScans(store.db, FIELD_INDEX_SPEC.index);
    // A database upgraded with records before the field index's background build: the bucket index only; 0042 keeps it.
    await sql.raw(`DROP INDEX IF EXISTS ${FIELD_INDEX_SPEC.index}`).execute(store.db);
    await sql.raw(`CREATE INDEX IF NOT EXISTS records_fts_tsv_seq_gin ON records_fts ${BUCKET_INDEX_SQL}`).execute(store.db);
    await up0042(store.db as unknown as Kysely<unknown>);
    expect(await all()).toEqual(["records_fts_tsv_seq_gin"]);
    await sameAsPlain(true);
    // The field index's build replaces the bucket index once valid (here without waiting for the other replicas).
    const field = textFieldIndex(store.db, async () => true, { replacedMs: 0 });
    await field.tick();
    expect(await all()).toEqual([FIELD_INDEX_SPEC.index, "records_fts_tsv_seq_gin"]);
    await field.tick();
    expect(await all()).toEqual([FIELD_INDEX_SPEC.index]);
    // The bucket index's job counts it as valid and builds nothing; the searches' bucket lookups read the field index.
    const buckets = new PostgresTextBuckets(store.db, { replacedMs: 0 });
    expect(await buckets.ready()).toBe(true);
    await buckets.tick();
    expect(await all()).toEqual([FIELD_INDEX_SPEC.index]);
    const read = await fieldScans();
    await sameAsPlain(true);
    await expect.poll(fieldScans, { timeout: 10_000 }).toBeGreaterThan(read);
    // A database with both valid (upgraded after 0037's build): 0042 drops the bucket index.
    await sql.raw(`CREATE INDEX records_fts_tsv_seq_gin ON records_fts ${BUCKET_INDEX_SQL}`).execute(store.db);
    await up0042(store.db as unknown as Kysely<unknown>);
    expect(await all()).toEqual([FIELD_INDEX_SPEC.index]);
    // Writes go to the one index of the words; searches find them.
    await insertRecords(store, data.ids.ds, 3, (i) => ({
      external_id: `after-${i}`,
      fields: JSON.stringify({ text: "amber birch after" }),
      metadata: "null",
    }));
    await sameAsPlain(true);
  }, 180_000);
});
