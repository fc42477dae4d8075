import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIELD_INDEX_SPEC, up } from "../db/migrations/postgres/0037-records-fts-field.js";
import type { Store } from "../db/store.js";
import { indexesOf, indexScans, openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { PostgresSearch } from "./postgres-search.js";
import { PostgresText } from "./postgres-text.js";
import { textFieldIndex } from "./postgres-text-field.js";
import { SEQ_BUCKET } from "./postgres-text-walk.js";
import type { SearchQuery } from "./search-port.js";
import {
  completeRecords,
  insertRecords,
  seedSearchData,
  insertAfterGap,
  textQueryMatrix,
  TEST_FILTERS,
  answerWhere,
} from "./search-port.suite.js";

const words = ["amber", "birch", "cedar", "delta", "ember"];
// `summary` holds amber and birch in some records only; `text` holds every word (and `solo`, never in a summary).
const summary = (i: number) =>
  i % 3 === 0 ? `amber birch ${words[i % 5]}` : i % 7 === 0 ? `birch ${"pad ".repeat(i % 4)}amber` : "plain words";
const body = (i: number) => `${words[(i * 2 + 1) % 5]} amber solo ${"pad ".repeat(i % 3)}${words[i % 5]}`;

/**
 * A text search in one field (issue 31) with `records_fts`'s index of the fields' names (migration 0037) and without it
 * (a database upgraded with records, before the background build): pages and totals equal to the plain SQL path's, the
 * other fields' words not matched, across buckets of records, with the queue's and other filters, deleted and updated
 * records. On a real PostgreSQL (the build is concurrent).
 */
describe.skipIf(!testDatabaseUrl())("PostgreSQL: a text search in one field, with the field index (migration 0037)", () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  const records: { id: string; seq: number }[] = [];
  const indexes = () => indexesOf(store.db, "records_fts");

  beforeAll(async () => {
    store = await openTestPostgresStore();
    data = await seedSearchData(store);
    // The dataset's records over several buckets (the windows' rounds), the other dataset's between them.
    for (const run of [0, 1, 2]) {
      if (run > 0) await insertAfterGap(store, SEQ_BUCKET + 5, data.ids.other, 5, { text: "solo", summary: "amber birch" }, `o-${run}`);
      const added = await insertRecords(store, data.ids.ds, 90, (j) => ({
        external_id: `f-${run}-${j}`,
        fields: JSON.stringify({ text: body(run * 90 + j), summary: summary(run * 90 + j) }),
        metadata: JSON.stringify({ genre: j % 2 === 0 ? "news" : "blog" }),
      }));
      records.push(...added);
      await answerWhere(store, added, (j) => j % 4 === 0, data.ids.u1, "submitted");
    }
    // A completed head: the pending queue's windows skip it.
    await completeRecords(store, records.slice(0, 12));
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const { pending, genre, completed, submitted } = TEST_FILTERS;
  const queries = (): SearchQuery[] =>
    textQueryMatrix(
      [
        { q: "amber", field: "summary" },
        { q: "birch", field: "summary" },
        { q: "amber birch", field: "summary" },
        { q: "amb*", field: "summary" },
        { q: "cedar", field: "summary" },
        { q: "solo", field: "summary" },
        { q: "solo", field: "text" },
        { q: "nothing", field: "summary" },
        { q: "", field: "summary" },
      ],
      [[], [pending], [genre], [pending, genre], [completed], [submitted]],
      [data.ids.ds, data.ids.other],
      data.ids.u1,
    );
  /** Every query through fresh adapters (the server's, and windows of 5 records to read several rounds and windows) equals the plain SQL path's. */
  const sameAsPlain = async (fieldReady: boolean) => {
    const plain = new PostgresSearch(store.db, { vectorSearch: false, textCache: false, rankAhead: false });
    const cached = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false });
    expect(await cached.textField.ready()).toBe(fieldReady);
    // Windows of 5 records (several windows and rounds), with the field index as the catalog says, equal the same without it.
    const windows = (field: () => Promise<boolean>, shortcuts: boolean) =>
      new PostgresText(store.db, undefined, null, 5, shortcuts, {}, undefined, undefined, shortcuts, field);
    const [withIndex, without] = [windows(() => cached.textField.ready(), true), windows(async () => false, true)];
    const [noShortcuts, noShortcutsWithout] = [windows(() => cached.textField.ready(), false), windows(async () => false, false)];
    for (const q of queries()) {
      const expected = await plain.search(q);
      expect(await cached.search(q), JSON.stringify(q)).toEqual(expected);
      expect(await withIndex.search(q), `windows of 5: ${JSON.stringify(q)}`).toEqual(await without.search(q));
      expect(await noShortcuts.search(q), `no answered/status path: ${JSON.stringify(q)}`).toEqual(await noShortcutsWithout.search(q));
    }
    // The comparison is not of empty pages: the field's words match, the other field's do not.
    const q = (text: string, field: string) => ({ ...queries()[0]!, text: { q: text, field } });
    expect((await plain.search(q("amber", "summary"))).total).toBeGreaterThan(90);
    expect((await plain.search(q("amber", "summary"))).total).toBeLessThan(270);
    expect((await plain.search(q("solo", "summary"))).total).toBe(0);
    expect((await plain.search(q("solo", "text"))).total).toBe(270);
  };
  const scans = () => indexScans(store.db, FIELD_INDEX_SPEC.index);

  it("answers as the plain path before the background build and after it, and reads the field in the new index", async () => {
    // A new database has the index from its migration.
    expect(await indexes()).toContain(FIELD_INDEX_SPEC.index);
    await sameAsPlain(true);
    // A database upgraded with records: the migration leaves a table with rows alone; the field is read from the heap.
    await sql.raw(`DROP INDEX ${FIELD_INDEX_SPEC.index}`).execute(store.db);
    await up(store.db as unknown as Kysely<unknown>);
    expect(await indexes()).not.toContain(FIELD_INDEX_SPEC.index);
    await sameAsPlain(false);
    // The background build (after the indexes before it), then the searches read the field through it.
    let before = false;
    const job = textFieldIndex(store.db, async () => before);
    await job.tick();
    expect(await indexes()).not.toContain(FIELD_INDEX_SPEC.index);
    before = true;
    await job.tick();
    expect(await indexes()).toContain(FIELD_INDEX_SPEC.index);
    expect(await job.ready()).toBe(true);
    const read = await scans();
    await sameAsPlain(true);
    await expect.poll(scans, { timeout: 10_000 }).toBeGreaterThan(read);
  }, 180_000);

  it("follows deleted records and a field's text changed, through an adapter that searched before", async () => {
    const cached = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: false });
    const plain = new PostgresSearch(store.db, { vectorSearch: false, textCache: false, rankAhead: false });
    const check = async () => {
      for (const q of queries().filter((x) => x.datasetId === data.ids.ds))
        expect(await cached.search(q), JSON.stringify(q)).toEqual(await plain.search(q));
    };
    await check();
    const q = { ...queries()[0]!, text: { q: "cedar", field: "summary" } };
    const before = (await plain.search(q)).total;
    // A record's summary now holds cedar, another's loses amber and birch; some records deleted.
    const [changed, emptied] = [records[100]!, records[30]!];
    await sql`UPDATE records SET fields = ${JSON.stringify({ text: "solo", summary: "cedar cedar fresh" })} WHERE id = ${changed.id}`.execute(
      store.db,
    );
    await sql`UPDATE records SET fields = ${JSON.stringify({ text: "amber birch", summary: "plain" })} WHERE id = ${emptied.id}`.execute(
      store.db,
    );
    await sql`DELETE FROM records WHERE id IN (${sql.join(records.slice(40, 60).map((r) => r.id))})`.execute(store.db);
    // cedar is in summary(i) for i % 15 === 12: 42 and 57 deleted.
    expect((await plain.search(q)).total).toBe(before + 1 - 2);
    const fresh = await cached.search({ ...q, text: { q: "fresh", field: "summary" } });
    expect(fresh).toEqual({ hits: [{ recordId: changed.id, score: expect.any(Number) }], total: 1 });
    await check();
  }, 180_000);
});
