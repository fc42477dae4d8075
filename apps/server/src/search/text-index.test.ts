import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openEmbeddedStore, type Store } from "../db/database.js";
import { seedSearchData } from "./search-port.suite.js";
import type { SearchQuery } from "./search-port.js";
import { SqliteSearch } from "./sqlite-search.js";
import { seededRandom } from "../testing/random.js";
import { FTS_HASH_SIZE, FTS_PREFIXES, MAX_BEHIND, normalizePrefixes, textIndexFor } from "./text-index.js";
import { ingestRecords } from "../records/ingest.js";

// Deferred full-text indexing on a thread of its own, in a file of its own (migrations 0014, 0016):
// records written without FTS rows are found by every text search, deletes and updates stay exact,
// and the mark survives a restart.
const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(dir?: string, textPrefixIndex?: string, textMaxBehind?: number) {
  const d = dir ?? mkdtempSync(join(tmpdir(), "tessera-text-index-"));
  if (!dir) dirs.push(d);
  const store = await openEmbeddedStore(d, { textPrefixIndex, textMaxBehind });
  stores.push(store);
  return { dir: d, store, port: new SqliteSearch(store.db) };
}

/** A record written the way the ingestion writes it: no FTS rows. */
async function addRecord(store: Store, datasetId: string, text: string): Promise<string> {
  const id = randomUUID();
  await store.db
    .insertInto("records")
    .values({
      id,
      dataset_id: datasetId,
      external_id: null,
      fields: JSON.stringify({ text, other: "filler" }),
      metadata: null,
      status: "pending",
      inserted_at: "2024-01-01T00:00:00",
      updated_at: "2024-01-01T00:00:00",
    })
    .execute();
  return id;
}

const ftsRows = (store: Store, word: string) =>
  (store.sqlite!.prepare("SELECT count(*) AS n FROM records_fts WHERE records_fts MATCH ?").get(word) as { n: number }).n;
const mark = (store: Store) =>
  store.sqlite!.prepare("SELECT value FROM fts.text_index_state WHERE name = 'indexed'").pluck().get() as number;
const query = (datasetId: string, q: string, extra: Partial<SearchQuery> = {}): SearchQuery => ({
  datasetId,
  userId: null,
  text: { q, field: null },
  vector: null,
  filters: [],
  sort: [],
  offset: 0,
  limit: 50,
  ...extra,
});

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
    // The delete is logged for the indexer thread, which applies it before the next search (two
    // entries: "xylophone one" had the same seq, reused by "xylophone two").
    expect(store.sqlite!.prepare("SELECT count(*) FROM records_fts_changes WHERE seq = ?").pluck().get(seq)).toBe(2);
    await textIndexFor(store.db)!.catchUp();
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
    await store.db
      .updateTable("records")
      .set({ fields: JSON.stringify({ text: "newword" }) })
      .where("id", "=", id)
      .execute();
    expect((await port.search(query(data.ids.ds, "oldword"))).total).toBe(0);
    expect((await port.search(query(data.ids.ds, "newword"))).total).toBe(1);
    expect(ftsRows(store, "newword")).toBe(1);
    // Indexed: the 0010 trigger keeps it.
    await store.db
      .updateTable("records")
      .set({ fields: JSON.stringify({ text: "thirdword" }) })
      .where("id", "=", id)
      .execute();
    expect((await port.search(query(data.ids.ds, "newword"))).total).toBe(0);
    expect((await port.search(query(data.ids.ds, "thirdword"))).total).toBe(1);
  });

  it("catches up after a restart, in the background", async () => {
    const first = await open();
    const data = await seedSearchData(first.store);
    const before = mark(first.store);
    const ids: string[] = [];
    for (let i = 0; i < 2500; i++) ids.push(await addRecord(first.store, data.ids.ds, `quokka number${i}`));
    await first.store.close();
    stores.splice(stores.indexOf(first.store), 1);

    const second = await open(first.dir);
    expect(mark(second.store)).toBe(before);
    await new Promise<void>((resolve) => {
      textIndexFor(second.store.db)!.start();
      const poll = setInterval(() => {
        if (mark(second.store) >= before + 2500) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    expect(ftsRows(second.store, "quokka")).toBe(2500);
    expect((await second.port.search(query(data.ids.ds, "number2499"))).hits.map((h) => h.recordId)).toEqual([ids[2499]]);
  });
});

describe("writers keep up with the text indexer (TextIndex.keepUp)", () => {
  const lastSeq = (store: Store) => store.sqlite!.prepare("SELECT max(seq) FROM records").pluck().get() as number;

  it("a writer waits for the indexer's next step while it is more records behind than allowed, not within it", async () => {
    const { store } = await open(undefined, undefined, 100);
    const data = await seedSearchData(store);
    const index = textIndexFor(store.db)!;
    for (let i = 0; i < 50; i++) await addRecord(store, data.ids.ds, `within number${i}`);
    index.noteWrite(50, data.ids.ds);
    expect(index.keepUp()).toBeUndefined();
    for (let i = 0; i < 300; i++) await addRecord(store, data.ids.ds, `behind number${i}`);
    index.noteWrite(300, data.ids.ds);
    const waiting = index.keepUp();
    expect(waiting).toBeInstanceOf(Promise);
    expect(index.holdingWriters).toBe(true);
    expect(index.recordsBehind).toBeGreaterThanOrEqual(300);
    await waiting;
    expect(index.holdingWriters).toBe(false);
    expect(index.recordsBehind).toBe(0);
    // The step it waited for indexed every record written before it (fewer than a chunk: all of them).
    expect(mark(store)).toBe(lastSeq(store));
    expect(ftsRows(store, "behind")).toBe(300);
    expect(index.keepUp()).toBeUndefined();
    expect(index.keptUp).toBe(1);
    // Far more behind than writes held a step at a time could put it (a rebuild, a catch-up after a restart): no wait.
    index.noteWrite(1001, data.ids.ds);
    expect(index.keepUp()).toBeUndefined();
    expect(index.keptUp).toBe(1);
  });

  it("the bulk ingestion answers once the indexer is within its bound of the records it wrote", async () => {
    const { store, port } = await open(undefined, undefined, 5);
    const data = await seedSearchData(store);
    await store.db
      .insertInto("fields")
      .values({
        id: randomUUID(),
        dataset_id: data.ids.ds,
        name: "text",
        title: "Text",
        required: 0,
        settings: '{"type":"text","use_markdown":false}',
        inserted_at: "t",
        updated_at: "t",
      })
      .execute();
    const items = Array.from({ length: 40 }, (_, i) => ({ fields: { text: `ingested wombat${i}` } }));
    const result = await ingestRecords(store.db, data.ids.ds, items, { mode: "create" });
    // Allowed 5 records behind, 40 written: the answer came after the indexer's step over them.
    expect(mark(store)).toBe(lastSeq(store));
    expect(ftsRows(store, "ingested")).toBe(40);
    expect(textIndexFor(store.db)!.keptUp).toBe(1);
    expect((await port.search(query(data.ids.ds, "wombat39"))).hits.map((h) => h.recordId)).toEqual([result.createdIds[39]]);
  });

  it("allows two indexing chunks by default", () => {
    expect(MAX_BEHIND).toBe(20_000);
  });
});

describe("text index file (migration 0016)", () => {
  it("keeps a whole indexing chunk's terms in memory before it writes a segment (FTS5 hashsize), in new and reopened files", async () => {
    const first = await open();
    const hashSize = (s: Store) => s.sqlite!.prepare("SELECT v FROM fts.records_fts_config WHERE k = 'hashsize'").pluck().get();
    expect(hashSize(first.store)).toBe(FTS_HASH_SIZE);
    // A file made before the option (or with another value) gets it when it is attached.
    first.store.sqlite!.exec("INSERT INTO fts.records_fts (records_fts, rank) VALUES ('hashsize', 1048576)");
    await first.store.close();
    stores.splice(stores.indexOf(first.store), 1);
    const second = await open(first.dir);
    expect(hashSize(second.store)).toBe(FTS_HASH_SIZE);
  });

  it("random inserts, deletes and fields updates: after a catch-up the index holds exactly the records' words", async () => {
    const { store } = await open();
    const data = await seedSearchData(store);
    const rand = seededRandom(1601);
    const words = ["alpha", "bravo", "charlie", "delta", "echo"];
    const live = new Map<string, string>(); // id -> word
    const index = textIndexFor(store.db)!;
    for (let step = 0; step < 120; step++) {
      const r = rand();
      const ids = [...live.keys()];
      if (r < 0.5 || ids.length === 0) {
        const word = words[Math.floor(rand() * words.length)]!;
        live.set(await addRecord(store, data.ids.ds, `${word} filler`), word);
        index.noteWrite(1, data.ids.ds);
      } else if (r < 0.75) {
        // Often the last record: SQLite then reuses its seq for the next insert.
        const id = rand() < 0.5 ? ids[ids.length - 1]! : ids[Math.floor(rand() * ids.length)]!;
        await store.db.deleteFrom("records").where("id", "=", id).execute();
        live.delete(id);
      } else {
        const id = ids[Math.floor(rand() * ids.length)]!;
        const word = words[Math.floor(rand() * words.length)]!;
        await store.db
          .updateTable("records")
          .set({ fields: JSON.stringify({ text: `${word} changed` }) })
          .where("id", "=", id)
          .execute();
        live.set(id, word);
      }
      if (step % 10 === 9) {
        await index.catchUp();
        for (const word of words) {
          const seqs = store
            .sqlite!.prepare("SELECT DISTINCT rowid >> 10 AS seq FROM records_fts WHERE records_fts MATCH ? ORDER BY 1")
            .pluck()
            .all(word);
          const idsOf = (seqs as number[]).map((s) => store.sqlite!.prepare("SELECT id FROM records WHERE seq = ?").pluck().get(s));
          const expected = [...live.entries()].filter(([, w]) => w === word).map(([id]) => id);
          expect(new Set(idsOf), `step ${step}, ${word}`).toEqual(new Set(expected));
        }
      }
    }
  });

  it("is rebuilt from the records when its file is missing or ahead of the store (a restored backup)", async () => {
    const first = await open();
    const data = await seedSearchData(first.store);
    await addRecord(first.store, data.ids.ds, "pangolin");
    await first.port.search(query(data.ids.ds, "pangolin"));
    expect(ftsRows(first.store, "pangolin")).toBe(1);
    await first.store.close();
    stores.splice(stores.indexOf(first.store), 1);

    rmSync(join(first.dir, "tessera-fts.db"));
    const second = await open(first.dir);
    expect(mark(second.store)).toBe(0);
    expect((await second.port.search(query(data.ids.ds, "pangolin"))).total).toBe(1);
    // A log the index has applied beyond (the store restored from an older copy): rebuilt too.
    second.store.sqlite!.prepare("UPDATE fts.text_index_state SET value = 1000000 WHERE name = 'applied'").run();
    await second.store.close();
    stores.splice(stores.indexOf(second.store), 1);
    const third = await open(first.dir);
    expect(mark(third.store)).toBe(0);
    expect((await third.port.search(query(data.ids.ds, "pangolin"))).total).toBe(1);
  });

  it("replaces a damaged index file by a new one at start", async () => {
    const first = await open();
    const data = await seedSearchData(first.store);
    await addRecord(first.store, data.ids.ds, "okapi");
    await first.store.close();
    stores.splice(stores.indexOf(first.store), 1);
    writeFileSync(join(first.dir, "tessera-fts.db"), "this is not a database file ".repeat(200));
    const errors: unknown[] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => {
      errors.push(args[0]);
    };
    try {
      const second = await open(first.dir);
      expect((await second.port.search(query(data.ids.ds, "okapi"))).total).toBe(1);
    } finally {
      console.error = log;
    }
    expect(String(errors[0])).toContain("is unusable");
  });

  it("builds a new file with the default prefix index; an existing file keeps its own unless other lengths are set, then it is rebuilt with them", async () => {
    const definition = (store: Store) =>
      store.sqlite!.prepare("SELECT sql FROM fts.sqlite_master WHERE name = 'records_fts'").pluck().get() as string;
    const prefixSearches = async (port: SqliteSearch, datasetId: string) => {
      const out = [];
      for (const q of ["pan*", "pang*", "pango*", "pangolin*", "pa*", "q*", "pan* wom*"]) out.push(await port.search(query(datasetId, q)));
      return out;
    };
    const reopen = async (dir: string, textPrefixIndex?: string) => {
      const errors: unknown[] = [];
      const log = console.error;
      console.error = (...args: unknown[]) => {
        errors.push(args[0]);
      };
      try {
        return { ...(await open(dir, textPrefixIndex)), errors };
      } finally {
        console.error = log;
      }
    };
    const closeStore = async (store: Store) => {
      await store.close();
      stores.splice(stores.indexOf(store), 1);
    };
    const fresh = await open();
    expect(definition(fresh.store)).toContain(`prefix = '${FTS_PREFIXES}'`);
    // Built as before the prefix index (none).
    const first = await open(undefined, "");
    expect(definition(first.store)).not.toContain("prefix");
    const data = await seedSearchData(first.store);
    for (const w of ["pangolin", "pangea", "panda", "pantry", "pan", "wombat pantry", "parrot", "quokka"])
      await addRecord(first.store, data.ids.ds, w);
    const before = await prefixSearches(first.port, data.ids.ds);
    expect(before[0]!.total).toBeGreaterThanOrEqual(5);
    await closeStore(first.store);

    // Nothing set (an upgrade): the file is kept as it is, no rebuild.
    const kept = await reopen(first.dir);
    expect(kept.errors).toEqual([]);
    expect(definition(kept.store)).not.toContain("prefix");
    expect(mark(kept.store)).toBeGreaterThan(0);
    await closeStore(kept.store);

    // Other lengths set: rebuilt with them.
    const second = await reopen(first.dir, FTS_PREFIXES);
    expect(String(second.errors[0])).toContain(`has the prefix index '', not '${FTS_PREFIXES}'`);
    expect(definition(second.store)).toContain(`prefix = '${FTS_PREFIXES}'`);
    expect(mark(second.store)).toBe(0); // a new file, built from the records
    expect(await prefixSearches(second.port, data.ids.ds)).toEqual(before);
    // FTS5 checks its prefix indexes against the terms.
    second.store.sqlite!.exec("INSERT INTO fts.records_fts (records_fts) VALUES ('integrity-check')");
    await closeStore(second.store);

    // The same lengths written otherwise: kept as they are.
    const third = await reopen(first.dir, FTS_PREFIXES.split(" ").reverse().join(", "));
    expect(third.errors).toEqual([]);
    expect(mark(third.store)).toBeGreaterThan(0);
    expect(await prefixSearches(third.port, data.ids.ds)).toEqual(before);
  });

  it("normalizes the prefix lengths as FTS5 takes them", () => {
    expect(normalizePrefixes("4 3")).toBe("3 4");
    expect(normalizePrefixes(" 2, 3,3  5 ")).toBe("2 3 5");
    expect(normalizePrefixes("")).toBe("");
    expect(normalizePrefixes("x 0 1000 -2 3")).toBe("3");
  });

  it("the request thread prunes the change log the indexer applied", async () => {
    const { store, port } = await open();
    const data = await seedSearchData(store);
    const ids: string[] = [];
    for (let i = 0; i < 1200; i++) ids.push(await addRecord(store, data.ids.ds, `wombat ${i}`));
    await port.search(query(data.ids.ds, "wombat"));
    await store.db.deleteFrom("records").where("id", "in", ids).execute();
    expect(store.sqlite!.prepare("SELECT count(*) FROM records_fts_changes").pluck().get()).toBeGreaterThanOrEqual(1200);
    expect((await port.search(query(data.ids.ds, "wombat"))).total).toBe(0);
    expect(ftsRows(store, "wombat")).toBe(0);
    expect(store.sqlite!.prepare("SELECT count(*) FROM records_fts_changes").pluck().get()).toBe(0);
  });
});
