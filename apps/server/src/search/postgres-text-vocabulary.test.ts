import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { queryRows, textVersion } from "./postgres-sql.js";
import { PostgresTextVocabulary } from "./postgres-text-vocabulary.js";
import { copyDataset as copy, insertRecords, seedSearchData } from "./search-port.suite.js";

const onPostgres = testDatabaseUrl() !== null;

describe(`PostgreSQL: the datasets' vocabularies for prefixes (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    ({ ids } = await seedSearchData(store));
    await insertRecords(store, ids.ds, 30, (i) => ({
      external_id: `v-${i}`,
      fields: JSON.stringify({ text: `alpha${i % 3} alphabet beta`, summary: i === 0 ? "gamma Été" : "plain" }),
      metadata: "null",
    }));
  }, 180_000);
  afterAll(async () => {
    await store?.close();
  });
  const copyDataset = (from: string) => copy(store, from);

  it("reads the lexemes of a dataset large enough once its version settled, and gives a prefix's at that version only", async () => {
    const vocabulary = new PostgresTextVocabulary(store.db, { minRecords: 20, settleMs: 0, rest: 0 });
    const version = await textVersion(store.db, ids.ds);
    // The first look sees the version, the second reads it; the other dataset (a few records) is not read.
    await vocabulary.tick();
    expect(vocabulary.expand(ids.ds, version, "alpha")).toBeNull();
    await vocabulary.tick();
    expect(vocabulary.expand(ids.ds, version, "alpha")).toEqual(["alpha0", "alpha1", "alpha2", "alphabet"]);
    expect(vocabulary.expand(ids.ds, version, "alphab")).toEqual(["alphabet"]);
    // A prefix shorter than the lists' key, the words as to_tsvector has them (lower case, no accents), none.
    expect(vocabulary.expand(ids.ds, version, "g")).toEqual(["gamma"]);
    expect(vocabulary.expand(ids.ds, version, "ete")).toEqual(["ete"]);
    expect(vocabulary.expand(ids.ds, version, "zzz")).toEqual([]);
    expect(vocabulary.expand(ids.ds, version + 1, "alpha")).toBeNull();
    expect(vocabulary.expand(ids.other, await textVersion(store.db, ids.other), "quick")).toBeNull();
    // A new record moves the version: read again at the next looks.
    await insertRecords(store, ids.ds, 1, () => ({ external_id: "v-new", fields: JSON.stringify({ text: "alphanew" }), metadata: "null" }));
    const moved = await textVersion(store.db, ids.ds);
    await vocabulary.tick();
    await vocabulary.tick();
    expect(vocabulary.expand(ids.ds, moved, "alphan")).toEqual(["alphanew"]);
  });

  it("rests after a read, and keeps no vocabulary larger than its limit", async () => {
    // A read waits a long time after it: the next version is not read (a version no replica stored yet: read, not loaded).
    await insertRecords(store, ids.ds, 1, () => ({
      external_id: "v-first",
      fields: JSON.stringify({ text: "alphafirst" }),
      metadata: "null",
    }));
    const resting = new PostgresTextVocabulary(store.db, { minRecords: 20, settleMs: 0, rest: 1e9 });
    await resting.tick();
    await resting.tick();
    expect(resting.reads).toBe(1);
    expect(resting.size).toBeGreaterThan(0);
    await insertRecords(store, ids.ds, 1, () => ({
      external_id: "v-rest",
      fields: JSON.stringify({ text: "alpharest" }),
      metadata: "null",
    }));
    const version = await textVersion(store.db, ids.ds);
    await resting.tick();
    await resting.tick();
    expect(resting.expand(ids.ds, version, "alpha")).toBeNull();
    // More words than the limit: none kept (nor stored: another replica loads none), prefixes take the other paths.
    const many = await copyDataset(ids.ds);
    await insertRecords(store, many, 3, (i) => ({
      external_id: `m-${i}`,
      fields: JSON.stringify({ text: `many${i} more` }),
      metadata: "null",
    }));
    const small = new PostgresTextVocabulary(store.db, { maxWords: 3 });
    expect(await small.read(many)).toBe(true);
    const manyVersion = await textVersion(store.db, many);
    expect(small.expand(many, manyVersion, "many")).toBeNull();
    expect(small.size).toBe(0);
    const other = new PostgresTextVocabulary(store.db, { minRecords: 1 });
    await other.tick();
    expect(other.loads).toBeGreaterThan(0);
    expect(other.expand(many, manyVersion, "many")).toBeNull();
  });

  it("is read once per text version for every replica: the others and a restart load it, a new word moves it, other datasets keep theirs", async () => {
    const ds = await copyDataset(ids.ds);
    const other = await copyDataset(ids.ds);
    for (const [id, word] of [
      [ds, "kiwi"],
      [other, "kumquat"],
    ] as const)
      await insertRecords(store, id, 60, (i) => ({
        external_id: `s-${i}`,
        fields: JSON.stringify({ text: `${word}${i % 4} fruit` }),
        metadata: "null",
      }));
    // At least 60 records: these two datasets only.
    const replica = () => new PostgresTextVocabulary(store.db, { minRecords: 60, settleMs: 0, rest: 0 });
    const [a, b] = [replica(), replica()];
    const version = await textVersion(store.db, ds);
    // The first replica reads both datasets (its second look: the version seen once), the second loads what it stored.
    await a.tick();
    await a.tick();
    expect(a.reads).toBe(2);
    expect(a.expand(ds, version, "kiwi")).toEqual(["kiwi0", "kiwi1", "kiwi2", "kiwi3"]);
    await b.tick();
    expect(b.reads).toBe(0);
    expect(b.loads).toBe(2);
    expect(b.expand(ds, version, "kiwi")).toEqual(["kiwi0", "kiwi1", "kiwi2", "kiwi3"]);
    // A restart loads at its first look, with no settling and no ts_stat.
    const restarted = replica();
    await restarted.tick();
    expect([restarted.reads, restarted.loads]).toEqual([0, 2]);
    expect(restarted.expand(other, await textVersion(store.db, other), "k")).toEqual(["kumquat0", "kumquat1", "kumquat2", "kumquat3"]);
    // Another replica imports a record with a new word: the stored vocabulary is of an older version (no replica expands with it).
    await insertRecords(store, ds, 1, () => ({ external_id: "s-new", fields: JSON.stringify({ text: "kiwinew" }), metadata: "null" }));
    const moved = await textVersion(store.db, ds);
    await b.tick();
    expect(b.expand(ds, moved, "kiwi")).toBeNull();
    expect(b.loads).toBe(2);
    // While a replica reads it (its row locked), the others neither read nor load it (a second connection: PostgreSQL only).
    if (onPostgres) {
      const held = await store.db.connection().execute(async (conn) => {
        await sql`BEGIN`.execute(conn);
        await sql`SELECT 1 FROM text_vocabulary WHERE dataset_id = ${ds} FOR UPDATE`.execute(conn);
        await b.tick(); // the version settled (seen once before): read, but the row is held
        const during = { reads: b.reads, expanded: b.expand(ds, moved, "kiwi") };
        await sql`ROLLBACK`.execute(conn);
        return during;
      });
      expect(held).toEqual({ reads: 0, expanded: null });
    }
    // Then one replica reads the new version, the other loads it; the other dataset's is not read again.
    await b.tick();
    expect(b.reads).toBe(1);
    expect(b.expand(ds, moved, "kiwi")).toEqual(["kiwi0", "kiwi1", "kiwi2", "kiwi3", "kiwinew"]);
    await a.tick();
    await a.tick();
    expect(a.reads).toBe(2);
    expect(a.expand(ds, moved, "kiwin")).toEqual(["kiwinew"]);
    expect(a.expand(other, await textVersion(store.db, other), "kumquat1")).toEqual(["kumquat1"]);
    const stored = await queryRows<{ dataset_id: string; version: string }>(
      store.db,
      "SELECT dataset_id, version FROM text_vocabulary WHERE dataset_id IN ($1, $2)",
      [ds, other],
    );
    expect(Object.fromEntries(stored.map((r) => [r.dataset_id, Number(r.version)]))).toEqual({
      [ds]: moved,
      [other]: await textVersion(store.db, other),
    });
  });

  it("reads a dataset holding every seq of its range by range, and one with another dataset's records between its own through them", async () => {
    // A dataset written alone (contiguous seqs), after the others: its rows by range.
    const alone = await copyDataset(ids.ds);
    await insertRecords(store, alone, 25, (i) => ({
      external_id: `a-${i}`,
      fields: JSON.stringify({ text: `omega${i % 2} delta` }),
      metadata: "null",
    }));
    const vocabulary = new PostgresTextVocabulary(store.db);
    await vocabulary.read(alone);
    expect(vocabulary.expand(alone, await textVersion(store.db, alone), "o")).toEqual(["omega0", "omega1"]);
    // The other dataset's records between the first dataset's: through `records`, its words only.
    await vocabulary.read(ids.ds);
    const version = await textVersion(store.db, ids.ds);
    expect(vocabulary.expand(ids.ds, version, "omega")).toEqual([]);
    expect(vocabulary.expand(ids.ds, version, "anoth")).toEqual([]);
    expect(vocabulary.expand(ids.other, await textVersion(store.db, ids.other), "anoth")).toBeNull();
    expect(vocabulary.expand(ids.ds, version, "alphabet")).toEqual(["alphabet"]);
  });
});
