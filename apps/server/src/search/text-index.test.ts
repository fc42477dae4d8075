import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openEmbeddedStore, type Store } from "../db/database.js";
import { seedSearchData } from "./search-port.suite.js";
import type { SearchQuery } from "./search-port.js";
import { SqliteSearch } from "./sqlite-search.js";
import { TextIndex } from "./text-index.js";

// Deferred full-text indexing (migration 0014): records written without FTS rows are found by every
// text search, deletes and updates stay exact, and the mark survives a restart.
const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(dir?: string) {
  const d = dir ?? mkdtempSync(join(tmpdir(), "tessera-text-index-"));
  if (!dir) dirs.push(d);
  const store = await openEmbeddedStore(d);
  stores.push(store);
  return { dir: d, store, port: new SqliteSearch(store.db) };
}

/** A record written the way the ingestion writes it: no FTS rows. */
async function addRecord(store: Store, datasetId: string, text: string): Promise<string> {
  const id = randomUUID();
  await store.db.insertInto("records").values({ id, dataset_id: datasetId, external_id: null, fields: JSON.stringify({ text, other: "filler" }), metadata: null, status: "pending", inserted_at: "2024-01-01T00:00:00", updated_at: "2024-01-01T00:00:00" }).execute();
  return id;
}

const ftsRows = (store: Store, word: string) => (store.sqlite!.prepare("SELECT count(*) AS n FROM records_fts WHERE records_fts MATCH ?").get(word) as { n: number }).n;
const mark = (store: Store) => (store.sqlite!.prepare("SELECT seq FROM search_index_state WHERE name = 'records_fts'").get() as { seq: number }).seq;
const query = (datasetId: string, q: string, extra: Partial<SearchQuery> = {}): SearchQuery => ({ datasetId, userId: null, text: { q, field: null }, vector: null, filters: [], sort: [], offset: 0, limit: 50, ...extra });

describe("deferred text index (SQLite)", () => {
  it("a record written without FTS rows is found by the next text search", async () => {
    const { store, port } = await open();
    const data = await seedSearchData(store);
    const id = await addRecord(store, data.ids.ds, "zanzibar quick");
    expect(ftsRows(store, "zanzibar")).toBe(0);
    const hits = await port.search(query(data.ids.ds, "zanzibar"));
    expect(hits).toEqual({ hits: [{ recordId: id, score: expect.any(Number) }], total: 1 });
    expect(ftsRows(store, "zanzibar")).toBe(1);
    expect(mark(store)).toBe(store.sqlite!.prepare("SELECT max(seq) AS n FROM records").pluck().get());

  });

  it("deletes: records not indexed yet, indexed ones and a reused seq", async () => {
    const { store, port } = await open();
    const data = await seedSearchData(store);
    const gone = await addRecord(store, data.ids.ds, "xylophone one");
    await store.db.deleteFrom("records").where("id", "=", gone).execute();
    expect((await port.search(query(data.ids.ds, "xylophone"))).total).toBe(0);

    // Indexed, then the last record is deleted: SQLite reuses its seq for the next record.
    const last = await addRecord(store, data.ids.ds, "xylophone two");
    expect((await port.search(query(data.ids.ds, "xylophone"))).total).toBe(1);
    const seq = store.sqlite!.prepare("SELECT seq FROM records WHERE id = ?").pluck().get(last);
    await store.db.deleteFrom("records").where("id", "=", last).execute();
    expect(ftsRows(store, "xylophone")).toBe(0);
    const reused = await addRecord(store, data.ids.ds, "marimba three");
    expect(store.sqlite!.prepare("SELECT seq FROM records WHERE id = ?").pluck().get(reused)).toBe(seq);
    expect((await port.search(query(data.ids.ds, "marimba"))).hits.map((h) => h.recordId)).toEqual([reused]);
    expect((await port.search(query(data.ids.ds, "xylophone"))).total).toBe(0);
  });

  it("a fields update of a record not indexed yet is indexed once, with the new text", async () => {
    const { store, port } = await open();
    const data = await seedSearchData(store);
    const id = await addRecord(store, data.ids.ds, "oldword");
    await store.db.updateTable("records").set({ fields: JSON.stringify({ text: "newword" }) }).where("id", "=", id).execute();
    expect((await port.search(query(data.ids.ds, "oldword"))).total).toBe(0);
    expect((await port.search(query(data.ids.ds, "newword"))).total).toBe(1);
    expect(ftsRows(store, "newword")).toBe(1);
    // Indexed: the 0010 trigger keeps it.
    await store.db.updateTable("records").set({ fields: JSON.stringify({ text: "thirdword" }) }).where("id", "=", id).execute();
    expect((await port.search(query(data.ids.ds, "newword"))).total).toBe(0);
    expect((await port.search(query(data.ids.ds, "thirdword"))).total).toBe(1);
  });

  it("catches up after a restart, in chunks, in the background", async () => {
    const first = await open();
    const data = await seedSearchData(first.store);
    const before = mark(first.store);
    const ids: string[] = [];
    for (let i = 0; i < 2500; i++) ids.push(await addRecord(first.store, data.ids.ds, `quokka number${i}`));
    await first.store.close();
    stores.splice(stores.indexOf(first.store), 1);

    const second = await open(first.dir);
    expect(mark(second.store)).toBe(before);
    const index = new TextIndex(second.store.db, (error) => { throw error; });
    await new Promise<void>((resolve) => {
      index.start();
      const poll = setInterval(() => { if (mark(second.store) >= before + 2500) { clearInterval(poll); resolve(); } }, 20);
    });
    index.stop();
    expect(ftsRows(second.store, "quokka")).toBe(2500);
    expect((await second.port.search(query(data.ids.ds, "number2499"))).hits.map((h) => h.recordId)).toEqual([ids[2499]]);
  });
});
