import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { textVersion } from "./postgres-sql.js";
import { PostgresTextVocabulary } from "./postgres-text-vocabulary.js";
import { insertRecords, seedSearchData } from "./search-port.suite.js";

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
    // A read waits a long time after it: the next version is not read.
    const resting = new PostgresTextVocabulary(store.db, { minRecords: 20, settleMs: 0, rest: 1e9 });
    await resting.tick();
    await resting.tick();
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
    // More words than the limit: none kept, prefixes take the other paths.
    const small = new PostgresTextVocabulary(store.db, { maxWords: 3 });
    await small.read(ids.ds);
    expect(small.expand(ids.ds, version, "alpha")).toBeNull();
    expect(small.size).toBe(0);
  });

  it("reads a dataset holding every seq of its range by range, and one with another dataset's records between its own through them", async () => {
    // A dataset written alone (contiguous seqs), after the others: its rows by range.
    const alone = randomUUID();
    await sql`CREATE TEMP TABLE alone_ds AS SELECT * FROM datasets WHERE id = ${ids.ds}`.execute(store.db);
    await sql`UPDATE alone_ds SET id = ${alone}, name = ${`alone-${alone}`}`.execute(store.db);
    await sql`INSERT INTO datasets SELECT * FROM alone_ds`.execute(store.db);
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
