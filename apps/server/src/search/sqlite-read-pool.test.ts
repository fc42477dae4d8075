import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedStore, rawSqliteOf, type Store } from "../db/database.js";
import { indexRecordTexts } from "../records/ingest.js";
import type { SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";
import { SqliteSearch } from "./sqlite-search.js";
import { matchJobKey, readPoolFor } from "./sqlite-read-pool.js";
import { SqliteText } from "./sqlite-text.js";
import { rankWindows, WINDOW_STEPS } from "./text-window.js";
import { addResponses } from "../testing/responses.js";
import { addTextRecord } from "../testing/text-records.js";

/**
 * Text searches not cached yet take their FTS part from the read threads (sqlite-read-pool.ts):
 * the hits, scores, order and totals must be exactly those of the request thread's own path, before
 * and after records are added, changed, deleted or answered, and when the threads are gone.
 */
describe("SQLite text search on the read threads", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  const words = ["alpha", "beta", "gamma", "alpha beta", "filler", "alp*"];

  const insert = (text: string, metadata: Record<string, unknown> | null = null) => addTextRecord(store.db, data.ids.ds, text, metadata);
  const queue = (q: string, offset = 0, limit = 10, sorted = false): SearchQuery => ({
    datasetId: data.ids.ds,
    userId: data.ids.u1,
    text: { q, field: null },
    vector: null,
    sort: sorted ? [{ scope: { entity: "record", property: "inserted_at" }, order: "desc" }] : [],
    offset,
    limit,
    filters: [
      { type: "terms", scope: { entity: "response_status" }, values: ["pending"] },
      { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
    ],
  });
  /** Every query, by a new adapter on the threads (nothing cached) and by the request thread's path. */
  const same = async () => {
    const text = new SqliteText(store.db, { fewMatches: -1 });
    const answered = readPoolFor(store.db)!.answered;
    for (const q of words)
      for (const query of [queue(q), queue(q, 3, 5), queue(q, 0, 200), queue(q, 0, 10, true)]) {
        const expected = await new SqliteSearch(store.db, { fewMatches: -1, offThread: false }).search(query);
        expect(await text.textSearch(query, query.text!)).toEqual(expected);
        expect(await new SqliteSearch(store.db).search(query)).toEqual(
          await new SqliteSearch(store.db, { offThread: false }).search(query),
        );
      }
    return { adopted: text.adopted, jobs: readPoolFor(store.db)!.answered - answered };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-text-pool-"));
    store = await openEmbeddedStore(dir);
    data = await seedSearchData(store);
    for (let i = 0; i < 150; i++) await insert(`${words[i % 3]} ${i % 5 === 0 ? words[(i + 1) % 3] : "filler"} word ${i}`);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers as the request thread does, from the threads' matches", async () => {
    const { adopted, jobs } = await same();
    expect(jobs).toBeGreaterThan(0);
    expect(adopted).toBeGreaterThan(0);
  });

  it("answers as the request thread does after records are added, changed, deleted and answered", async () => {
    await insert("alpha newcomer");
    expect((await same()).adopted).toBeGreaterThan(0);
    const first = (await new SqliteSearch(store.db, { offThread: false }).search(queue("alpha"))).hits[0]!.recordId;
    await store.db.deleteFrom("records").where("id", "=", first).execute();
    await indexRecordTexts(store.db);
    expect((await same()).adopted).toBeGreaterThan(0);
    const second = (await new SqliteSearch(store.db, { offThread: false }).search(queue("beta"))).hits[0]!.recordId;
    await store.db
      .updateTable("records")
      .set({ fields: JSON.stringify({ text: "gamma only now" }) })
      .where("id", "=", second)
      .execute();
    await indexRecordTexts(store.db);
    await addResponses(store.db, [second], data.ids.u1);
    expect((await same()).adopted).toBeGreaterThan(0);
  });

  it("scores the windows a page needs only, and reads the bounded total's further records without scores", async () => {
    const raw = rawSqliteOf(store.db)!;
    const { lo, hi } = raw.prepare("SELECT min(seq) AS lo, max(seq) AS hi FROM records WHERE dataset_id = ?").get(data.ids.ds) as {
      lo: number;
      hi: number;
    };
    const where = "records_fts WHERE records_fts MATCH ? AND rowid BETWEEN ? AND ?";
    const params = ['"filler"', lo * 1024, hi * 1024 + 1023];
    const rows = raw
      .prepare(`SELECT rowid, bm25(records_fts) FROM ${where} ORDER BY rowid`)
      .raw()
      .all(...params) as [number, number][];
    const records = [...new Set(rows.map(([rowid]) => Math.floor(rowid / 1024)))];
    expect(records.length).toBeGreaterThan(100);
    // Windows of 10 records, 4 rows wanted, the bounded total wanting every matching record.
    const job = (ranked: number) => ({
      expression: '"filler"',
      lo: lo * 1024,
      hi: hi * 1024 + 1023,
      field: null,
      seqs: false,
      ranked,
      prefix: 0,
      window: 10,
    });
    const answer = await readPoolFor(store.db)!.run({ ...job(4), prefix: records.length });
    const expected = rankWindows(rows, 4, 10, lo);
    expect(Array.from(answer.ranked!.fr)).toEqual(Array.from(expected.fr));
    expect(Array.from(answer.ranked!.bm)).toEqual(Array.from(expected.bm));
    expect(Array.from(answer.prefix!.seqs)).toEqual(records);
    expect(answer.prefix!.complete).toBe(true);
    // The first window's rows, whole: not every match's.
    const firstWindow = rows.filter(([rowid]) => Math.floor(rowid / 1024) < records[10]!).length;
    expect(answer.scoredRows).toBe(firstWindow);
    expect(firstWindow).toBeLessThan(rows.length / 4);
    expect(answer.windows).toEqual({ complete: false, next: expected.next, width: expected.width });
    // From a later record (the caller's first queue record): the rows before it not scored, their records still listed.
    const from = records[25]!;
    const later = await readPoolFor(store.db)!.run({ ...job(4), prefix: records.length, from });
    const fromExpected = rankWindows(rows, 4, 10, lo, 0, WINDOW_STEPS, from);
    expect(Array.from(later.ranked!.fr)).toEqual(Array.from(fromExpected.fr));
    expect(Array.from(later.prefix!.seqs)).toEqual(records);
    expect(later.scoredRows).toBe(fromExpected.fr.length);
    expect(Math.floor(later.ranked!.fr[0]! / 1024)).toBeGreaterThanOrEqual(from);
    // The windows after those: read from where they end, none of theirs scored again, the same rows as the whole order's.
    const start = { seq: later.windows!.next!, width: later.windows!.width };
    const after = await readPoolFor(store.db)!.run({ ...job(30), start });
    expect(after.prefix).toBeNull();
    const whole = rankWindows(rows, Number.MAX_SAFE_INTEGER, 10, lo, 0, WINDOW_STEPS, from);
    const both = [...later.ranked!.fr, ...after.ranked!.fr];
    expect(both).toEqual(Array.from(whole.fr).slice(0, both.length));
    expect(after.scoredRows).toBe(after.ranked!.fr.length);
    expect(Math.min(...after.ranked!.fr)).toBeGreaterThanOrEqual(start.seq * 1024);
  });

  it("computes on the request thread when the threads are gone", async () => {
    await readPoolFor(store.db)!.close();
    const { adopted, jobs } = await same();
    expect(jobs).toBe(0);
    expect(adopted).toBe(0);
  });
});

describe("a text match job's key", () => {
  const job = { expression: '"alpha"', lo: 0, hi: 1023, field: null, seqs: false, ranked: 64, prefix: 2000, window: 0, passing: 11 };
  it("tells apart exclusions of the same length and sum (each job's prefix stops where enough pass its own)", () => {
    const a = matchJobKey({ ...job, excluded: Uint32Array.from([1, 4, 9]) });
    const b = matchJobKey({ ...job, excluded: Uint32Array.from([2, 3, 9]) });
    expect(a).not.toBe(b);
    expect(matchJobKey({ ...job, excluded: Uint32Array.from([1, 4, 9]) })).toBe(a);
    // A view of a larger array keys as its own seqs.
    expect(matchJobKey({ ...job, excluded: Uint32Array.from([7, 1, 4, 9]).subarray(1) })).toBe(a);
  });
  it("tells apart no exclusions, none listed and the job's other fields", () => {
    const keys = new Set([
      matchJobKey(job),
      matchJobKey({ ...job, excluded: new Uint32Array(0) }),
      matchJobKey({ ...job, passing: 12 }),
      matchJobKey({ ...job, field: "text" }),
    ]);
    expect(keys.size).toBe(4);
  });
});
