import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedStore, rawSqliteOf, type Store } from "../db/database.js";
import { addResponses } from "../testing/responses.js";
import { addTextRecords } from "../testing/text-records.js";
import type { SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";
import { SqliteText } from "./sqlite-text.js";
import { readStatementSql } from "./read-statements.js";
import { ANSWERED_HELPERS, ANSWERED_SEEK_ROWS, type AnsweredRead, answeredRanges, answeredRead, bestRows } from "./sqlite-text-answered.js";
import { filterSql } from "./sqlite-sql.js";
import { textIndexFor } from "./text-index.js";

interface TextDataset {
  dir: string;
  store: Store;
  data: Awaited<ReturnType<typeof seedSearchData>>;
  ids: string[];
}

/** A store with the search suite's users and one dataset of `records` text records alone in its seq range (another dataset's inside it takes the other paths). */
async function textDataset(prefix: string, records: Parameters<typeof addTextRecords>[2]): Promise<TextDataset> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = await openEmbeddedStore(dir);
  const data = await seedSearchData(store);
  await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
  const ids = await addTextRecords(store.db, data.ids.ds, records);
  await textIndexFor(store.db)?.catchUp();
  return { dir, store, data, ids };
}

/** A plain word's read of the seqs lo..hi (tessera_answered when `top`): as a span (a deep read's), or as their list. */
const wordRead = (expression: string, lo: number, hi: number, span: boolean, top: AnsweredRead["top"]): AnsweredRead => ({
  expression,
  field: null,
  seqs: span ? new Uint32Array(0) : Uint32Array.from({ length: hi - lo + 1 }, (_, i) => lo + i),
  span: span ? [lo, hi] : null,
  records: hi - lo + 1,
  scoring: "word",
  known: {},
  members: true,
  gap: 1,
  seekRows: 0,
  maxRanges: 1024,
  top,
});

/**
 * The Submitted (Draft, Discarded) views' text search of an annotator with more answered records than the old path took
 * (2,000), spread through the dataset (every other record: a team sharing one queue): the answered records' rows read
 * with tessera_seq_in's bitmap on a text match thread, or here, or with an IN list, give the plain path's pages and totals.
 */
describe("text search of many answered records", () => {
  let t: TextDataset;
  const RECORDS = 6000;

  beforeAll(async () => {
    t = await textDataset(
      "tessera-answered-",
      Array.from({ length: RECORDS }, (_, i) => ({
        text: [
          i % 5 !== 0 ? "common" : "filler",
          i % 5 === 1 ? "middle" : "other",
          i % 97 === 3 ? "rare" : "",
          "common ".repeat(i % 4),
          "pad ".repeat(i % 6),
        ].join(" "),
        context: i % 3 === 0 ? "middle common" : "context",
        metadata: { genre: i % 3 === 0 ? "blog" : "news" },
      })),
    );
    // u1: 3,000 submitted records, every other one, and a few discarded; u2: every seventh, as drafts.
    await addResponses(
      t.store.db,
      t.ids.filter((_, i) => i % 2 === 0),
      t.data.ids.u1,
    );
    await addResponses(
      t.store.db,
      t.ids.filter((_, i) => i % 2 === 1 && i % 11 === 0),
      t.data.ids.u1,
      "discarded",
    );
    await addResponses(
      t.store.db,
      t.ids.filter((_, i) => i % 7 === 0),
      t.data.ids.u2,
      "draft",
    );
  }, 120_000);
  afterAll(async () => {
    await t.store?.close();
    rmSync(t.dir, { recursive: true, force: true });
  });

  const view = (q: string, statuses: string[], userId: string | null, offset = 0, extra: SearchQuery["filters"] = []): SearchQuery => ({
    datasetId: t.data.ids.ds,
    userId,
    text: { q, field: null },
    vector: null,
    sort: [],
    offset,
    limit: 10,
    filters: [{ type: "terms", scope: { entity: "response_status" }, values: statuses }, ...extra],
  });

  it("answers as the plain path, with more than 2,000 answered records spread through the dataset", async () => {
    // Its read split between the two threads (above 1,024 candidates), or on one thread.
    const threaded = new SqliteText(t.store.db, { rankWindow: 50 });
    const oneThread = new SqliteText(t.store.db, { rankWindow: 50, answeredSplit: Infinity });
    const here = new SqliteText(t.store.db, { rankWindow: 50, offThread: false });
    const inList = new SqliteText(t.store.db, { rankWindow: 50, answeredMembers: false });
    const rowsInJs = new SqliteText(t.store.db, { rankWindow: 50, answeredTop: false });
    const plain = new SqliteText(t.store.db, { rankWindow: 50, answered: false });
    let compared = 0;
    for (const q of ["common", "middle", "rare", "common middle", "comm*", "nothingsuch", "-"])
      for (const [statuses, userId] of [
        [["submitted"], t.data.ids.u1],
        [["submitted", "discarded"], t.data.ids.u1],
        [["draft"], t.data.ids.u2],
        [["draft"], t.data.ids.u1],
      ] as const)
        for (const extra of [
          [],
          [{ type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] }],
        ] as SearchQuery["filters"][])
          for (const offset of [0, 30]) {
            const query = view(q, [...statuses], userId, offset, extra);
            const expected = await plain.textSearch(query, query.text!);
            for (const adapter of [threaded, oneThread, here, inList, rowsInJs])
              expect(await adapter.textSearch(query, query.text!)).toEqual(expected);
            if (expected.total > 40) compared++;
          }
    expect(compared).toBeGreaterThan(20);
    // The answered path answered (beyond 2,000 answered records), its reads on the threads for the threaded adapter only.
    expect(threaded.answeredSearches).toBeGreaterThan(50);
    expect(threaded.answeredOffThread).toBeGreaterThan(20);
    expect(oneThread.answeredOffThread).toBe(threaded.answeredOffThread);
    expect(threaded.answeredSplits).toBeGreaterThan(10);
    expect(oneThread.answeredSplits).toBe(0);
    expect(here.answeredOffThread).toBe(0);
    expect(inList.answeredSearches).toBe(threaded.answeredSearches);
    // Counted and ranked in C (tessera_answered) by default; the rows returned with an IN list, or when asked.
    expect(threaded.answeredInC).toBeGreaterThan(50);
    expect(here.answeredInC).toBe(threaded.answeredInC);
    expect(inList.answeredInC).toBe(0);
    expect(rowsInJs.answeredInC).toBe(0);
  }, 120_000);

  it("counts a word's rows for its score on the thread that reads them, once per index version", async () => {
    const text = new SqliteText(t.store.db);
    const query = view("middle", ["submitted"], t.data.ids.u1);
    const first = await text.textSearch(query, query.text!);
    expect(first.total).toBeGreaterThan(100);
    expect(text.answeredOffThread).toBe(1);
    expect(text.phraseCounts).toBe(1); // counted there, kept here
    expect(await text.textSearch(query, query.text!)).toEqual(first);
    expect(text.phraseCounts).toBe(1);
    expect(text.answeredOffThread).toBe(2);
  });

  it("reads runs of candidates apart as ranges of their own only when the query's rows between them cost more than a range", () => {
    const raw = rawSqliteOf(t.store.db)!;
    const gaps: number[] = [];
    const helpers = {
      ...ANSWERED_HELPERS,
      ranges: (seqs: ArrayLike<number>, gap: number, max: number) => (gaps.push(gap), answeredRanges(seqs, gap, max)),
    };
    const lo = raw.prepare("SELECT min(seq) FROM records WHERE dataset_id = ?").pluck().get(t.data.ids.ds) as number;
    const seqs = Uint32Array.from({ length: 100 }, (_, i) => lo + i * 50);
    const read = (expression: string, known: Record<string, number>, seekRows = ANSWERED_SEEK_ROWS): AnsweredRead => ({
      expression,
      field: null,
      seqs,
      records: RECORDS,
      scoring: "word",
      known,
      members: true,
      gap: 256,
      seekRows,
      maxRanges: 1024,
    });
    const all = (expression: string, known: Record<string, number>, seekRows?: number) => {
      const r = answeredRead((sql) => raw.prepare(sql), read(expression, known, seekRows), helpers);
      return Array.from(r.fr, (fr, i) => [fr, r.bm[i]]);
    };
    // "common" is in ~80% of the records' rows: a gap of ~SEEK_ROWS / 0.9 records; "rare" in 1%: one range for all.
    const common = all('"common"', {});
    expect(gaps.at(-1)).toBeLessThan(ANSWERED_SEEK_ROWS);
    const rare = all('"rare"', {});
    expect(gaps.at(-1)).toBeGreaterThan(5000);
    // The same rows whatever the ranges.
    expect(all('"common"', {}, 0)).toEqual(common);
    expect(gaps.at(-1)).toBe(256);
    expect(all('"rare"', {}, 0)).toEqual(rare);
    expect(common.length).toBeGreaterThan(50);
    expect(rare.length).toBeGreaterThan(0);
  });
});

/**
 * The answered records' rows counted and ranked in C (tessera_answered, native/tessera_rank.c) for other layouts than
 * every other record: contiguous (a dataset's first records, read by two threads), one record, runs of five records
 * (phrases at the runs' edges), none; another user's answers and other statuses kept out.
 */
describe("text search of answered records counted and ranked in C", () => {
  let t: TextDataset;
  const RECORDS = 4000;

  beforeAll(async () => {
    t = await textDataset(
      "tessera-answered-c-",
      Array.from({ length: RECORDS }, (_, i) => ({
        // "zeta" only in records nobody answered; "alpha" and "beta" together in every 12th record.
        text: [i % 3 === 0 ? "alpha" : "filler", i % 4 === 0 ? "beta" : "", i >= 3900 ? "zeta" : "", "pad ".repeat(i % 7)].join(" "),
        context: i % 5 === 0 ? "gamma alpha" : "context",
        metadata: { genre: i % 2 === 0 ? "blog" : "news" },
      })),
    );
    // u1: the first 1,500 records submitted (contiguous), one discarded; u2: runs of five records every 40 as drafts, every
    // ninth of the first 1,500 outside them submitted (records u1 submitted too).
    await addResponses(t.store.db, t.ids.slice(0, 1500), t.data.ids.u1);
    await addResponses(t.store.db, [t.ids[2000]!], t.data.ids.u1, "discarded");
    await addResponses(
      t.store.db,
      t.ids.filter((_, i) => i < 3800 && i % 40 < 5),
      t.data.ids.u2,
      "draft",
    );
    await addResponses(
      t.store.db,
      t.ids.filter((_, i) => i < 1500 && i % 9 === 0 && i % 40 >= 5),
      t.data.ids.u2,
    );
  }, 120_000);
  afterAll(async () => {
    await t.store?.close();
    rmSync(t.dir, { recursive: true, force: true });
  });

  const view = (q: string, statuses: string[], userId: string, offset = 0): SearchQuery => ({
    datasetId: t.data.ids.ds,
    userId,
    text: { q, field: null },
    vector: null,
    sort: [],
    offset,
    limit: 10,
    filters: [{ type: "terms", scope: { entity: "response_status" }, values: statuses }],
  });

  it("answers as the plain path for contiguous records, one record, runs of records and none", async () => {
    const threaded = new SqliteText(t.store.db, { rankWindow: 40 });
    const here = new SqliteText(t.store.db, { rankWindow: 40, offThread: false });
    const oneThread = new SqliteText(t.store.db, { rankWindow: 40, answeredSplit: Infinity });
    const rowsInJs = new SqliteText(t.store.db, { rankWindow: 40, answeredTop: false });
    const plain = new SqliteText(t.store.db, { rankWindow: 40, answered: false });
    const totals = new Map<string, number>();
    for (const q of ["alpha", "beta", "gamma", "alpha beta", "gamma alpha", "gamma beta", "alph*", "zeta", "nothingsuch"])
      for (const [name, statuses, userId] of [
        ["u1 submitted (contiguous)", ["submitted"], t.data.ids.u1],
        ["u1 discarded (one record)", ["discarded"], t.data.ids.u1],
        ["u1 drafts (none)", ["draft"], t.data.ids.u1],
        ["u2 drafts (runs of five)", ["draft"], t.data.ids.u2],
        ["u2 submitted", ["submitted"], t.data.ids.u2],
        ["u2 submitted or drafts", ["submitted", "draft"], t.data.ids.u2],
      ] as const)
        for (const offset of [0, 10, 95]) {
          const query = view(q, [...statuses], userId, offset);
          const expected = await plain.textSearch(query, query.text!);
          for (const adapter of [threaded, here, oneThread, rowsInJs])
            expect(await adapter.textSearch(query, query.text!)).toEqual(expected);
          if (offset === 0) totals.set(`${q} ${name}`, expected.total);
        }
    // The layouts' totals (exact): every u1 record with "alpha" of the first 1,500, its one discarded record, none of "zeta".
    expect(totals.get("alpha u1 submitted (contiguous)")).toBe(
      Array.from({ length: 1500 }, (_, i) => i % 3 === 0 || i % 5 === 0).filter(Boolean).length,
    );
    expect(totals.get("alpha u1 discarded (one record)")).toBe(1); // record 2000: "gamma alpha" in its context
    expect(totals.get("beta u1 discarded (one record)")).toBe(1);
    expect(totals.get("gamma alpha u1 discarded (one record)")).toBe(1);
    expect(totals.get("gamma beta u1 discarded (one record)")).toBe(0); // in two fields: no row holds both
    expect(totals.get("alpha u1 drafts (none)")).toBe(0);
    expect(totals.get("zeta u2 drafts (runs of five)")).toBe(0);
    expect(totals.get("beta u2 drafts (runs of five)")).toBe(
      Array.from({ length: 3800 }, (_, i) => i % 40 < 5 && i % 4 === 0).filter(Boolean).length,
    );
    const u2Submitted = (i: number) => i < 1500 && i % 9 === 0 && i % 40 >= 5;
    expect(totals.get("beta u2 submitted")).toBe(
      Array.from({ length: 1500 }, (_, i) => u2Submitted(i) && i % 4 === 0).filter(Boolean).length,
    );
    expect(totals.get("beta u2 submitted or drafts")).toBe(
      Array.from({ length: 3800 }, (_, i) => (u2Submitted(i) || i % 40 < 5) && i % 4 === 0).filter(Boolean).length,
    );
    expect(threaded.answeredInC).toBeGreaterThan(50);
    expect(threaded.answeredSplits).toBeGreaterThan(0); // u1's 1,500 records: two threads
    expect(here.answeredInC).toBe(threaded.answeredInC);
    expect(rowsInJs.answeredInC).toBe(0);
  }, 120_000);

  it("reads the windows' width only when a candidate lies beyond the first window's least width", async () => {
    // u1's 1,500 submitted records are the dataset's first: windows of 2,000 matching records order them as one.
    const wide = new SqliteText(t.store.db, { rankWindow: 2000 });
    const narrow = new SqliteText(t.store.db, { rankWindow: 40 });
    const plainWide = new SqliteText(t.store.db, { rankWindow: 2000, answered: false });
    const plainNarrow = new SqliteText(t.store.db, { rankWindow: 40, answered: false });
    for (const q of ["alpha beta", "gamma alpha", "alph*"])
      for (const offset of [0, 20]) {
        const query = view(q, ["submitted"], t.data.ids.u1, offset);
        expect(await wide.textSearch(query, query.text!)).toEqual(await plainWide.textSearch(query, query.text!));
        expect(await narrow.textSearch(query, query.text!)).toEqual(await plainNarrow.textSearch(query, query.text!));
      }
    expect(wide.answeredInC).toBe(6);
    expect(wide.answeredWidths).toBe(0);
    expect(narrow.answeredWidths).toBe(6);
    // Another order than one window's: the narrow windows' first page is not the wide one's.
    const query = view("alpha beta", ["submitted"], t.data.ids.u1);
    expect(await narrow.textSearch(query, query.text!)).not.toEqual(await wide.textSearch(query, query.text!));
  });

  it("counts the members' records and keeps the k best in the windows' order, as the rows returned give them", () => {
    const raw = rawSqliteOf(t.store.db)!;
    const lo = raw.prepare("SELECT min(seq) FROM records WHERE dataset_id = ?").pluck().get(t.data.ids.ds) as number;
    // Runs of five records every 40 from the dataset's first: the ranges' edges fall at the runs'.
    const seqs = Uint32Array.from({ length: RECORDS }, (_, i) => lo + i).filter((seq) => (seq - lo) % 40 < 5);
    const read = (expression: string, top: AnsweredRead["top"]): AnsweredRead => ({
      ...wordRead(expression, lo, lo + RECORDS - 1, false, top),
      seqs,
      scoring: expression.includes(" ") ? "phrases" : "word",
    });
    for (const expression of ['"alpha"', '"beta"', '"alpha" "beta"', '"zeta"'])
      for (const width of [0, 100, 333]) {
        const rows = answeredRead((sql) => raw.prepare(sql), read(expression, null), ANSWERED_HELPERS);
        const best = bestRows(Array.from(rows.fr, (fr, i): [number, number] => [fr, rows.bm[i]!]));
        const window = (seq: number) => (width === 0 ? 0 : Math.floor((seq - lo) / width));
        const order = [...best.entries()].sort(([sa, a], [sb, b]) => window(sa) - window(sb) || a.bm - b.bm || a.fr - b.fr);
        for (const k of [0, 1, 7, 10_000]) {
          const inC = answeredRead(
            (sql) => raw.prepare(sql),
            read(expression, { k, lo, width, generation: k === 7 ? 1 : 0 }),
            ANSWERED_HELPERS,
          );
          expect(inC.records).toBe(best.size);
          expect(Array.from(inC.fr)).toEqual(order.slice(0, k).map(([, b]) => b.fr));
          expect(Array.from(inC.bm)).toEqual(order.slice(0, k).map(([, b]) => b.bm));
        }
        if (expression !== '"zeta"') expect(best.size).toBeGreaterThan(20);
      }
    // A statement that fails leaves nothing behind: the next one counts from zero.
    expect(() =>
      raw
        .prepare("SELECT 1 FROM records_fts WHERE records_fts MATCH '\"alpha\"' AND tessera_answered(records_fts, x'ff', 0, -1, 0, 0, 0)")
        .all(),
    ).toThrow(/non-negative integers/);
    raw.prepare("SELECT tessera_answered_result()").pluck().get();
    const again = answeredRead((sql) => raw.prepare(sql), read('"beta"', { k: 3, lo, width: 0, generation: 0 }), ANSWERED_HELPERS);
    expect(again.records).toBe(
      bestRows(
        Array.from(answeredRead((sql) => raw.prepare(sql), read('"beta"', null), ANSWERED_HELPERS).fr, (fr): [number, number] => [fr, 0]),
      ).size,
    );
  });

  it("reads a span of seqs as their list, and the rows' lengths from the table of every row's length as from docsize", () => {
    const raw = rawSqliteOf(t.store.db)!;
    const lo = raw.prepare("SELECT min(seq) FROM records WHERE dataset_id = ?").pluck().get(t.data.ids.ds) as number;
    const hi = lo + RECORDS - 1;
    const read = (expression: string, generation: number, span: boolean): AnsweredRead =>
      wordRead(expression, lo, hi, span, { k: 500, lo, width: 0, generation, lengthsKept: false });
    // Loaded in two batches (the second from where the first ended), at generation 9000 (no read here uses it before).
    const load = raw.prepare("SELECT tessera_lengths_load(?, ?, ?, ?, ?)").pluck();
    expect(load.get(9000, lo, hi, lo + 5, hi)).toBe(lo); // another table's: from its first seq only
    expect(load.get(9000, lo, hi, lo, lo + 2_000)).toBe(lo + 2_001);
    expect(load.get(9000, lo, hi, lo + 2_001, hi + 50)).toBe(hi + 1);
    expect(() => load.get(0, lo, hi, lo, hi)).toThrow(/generation >= 1/);
    expect(() => load.get(9000, lo, hi, -1, hi)).toThrow(/non-negative integers/);
    for (const expression of ['"alpha"', '"beta"', '"zeta"']) {
      const listed = answeredRead((sql) => raw.prepare(sql), read(expression, 0, false), ANSWERED_HELPERS);
      for (const [generation, span] of [
        [0, true],
        [9000, true],
        [9000, false],
      ] as [number, boolean][]) {
        const r = answeredRead((sql) => raw.prepare(sql), read(expression, generation, span), ANSWERED_HELPERS);
        expect(r.records, `${expression} ${generation} ${span}`).toBe(listed.records);
        expect(Array.from(r.fr)).toEqual(Array.from(listed.fr));
        expect(Array.from(r.bm)).toEqual(Array.from(listed.bm));
      }
      if (expression !== '"zeta"') expect(listed.fr.length).toBeGreaterThan(20);
    }
  });
});

/**
 * tessera_answered with a large k (a plain word's deep read, sqlite-text-deep.ts: 4 x (3 x (offset + limit) + 32) records):
 * every record's best row kept in the order read and cut to the k best by counting their keys (native/tessera_rank.c
 * ansSelect), not a heap. The k best by (window, score, rowid) equal those of every row returned and sorted here, with
 * the cut inside a run of equal scores (ties by rowid), cut several times while reading, with more distinct keys than
 * counted (windows of one record: sorted instead), and with the ranges read out of rowid order (sorted instead).
 */
describe("the k best of many records kept by counting their keys", () => {
  let dir: string;
  let store: Store;
  let raw: ReturnType<typeof rawSqliteOf> & object;
  const RECORDS = 90_000;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-answered-select-"));
    store = await openEmbeddedStore(dir);
    raw = rawSqliteOf(store.db)!;
    // Two rows a record: "alpha" 1-3 times in rows of 2-9 tokens (few distinct scores, long runs of ties), not in every row.
    const insert = raw.prepare("INSERT INTO fts.records_fts (rowid, content, field) VALUES (?, ?, ?)");
    raw.transaction(() => {
      for (let seq = 1; seq <= RECORDS; seq++)
        for (let i = 0; i < 2; i++) {
          const h = (seq * 7919 + i * 104_729) % 1_000_003;
          const alpha = (h % 11) % 4; // 0-3 times
          const pad = 2 + ((h >> 3) % 7);
          insert.run(
            seq * 1024 + i,
            [..."alpha ".repeat(alpha).split(" ").filter(Boolean), ..."pad ".repeat(pad).split(" ").filter(Boolean)].join(" "),
            "text",
          );
        }
    })();
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const read = (top: AnsweredRead["top"]): AnsweredRead => wordRead('"alpha"', 1, RECORDS, true, top);
  /** Every record's best row, as the rows returned (tessera_bm25 row by row) give them, in the order of windows `width` wide. */
  const slowOrder = (width: number) => {
    const rows = answeredRead(
      (sql) => raw.prepare(sql),
      { ...wordRead('"alpha"', 1, RECORDS, false, null), members: false },
      ANSWERED_HELPERS,
    );
    const window = (seq: number) => (width === 0 ? 0 : Math.floor((seq - 1) / width));
    return [...bestRows(Array.from(rows.fr, (fr, i): [number, number] => [fr, rows.bm[i]!])).entries()]
      .sort(([sa, a], [sb, b]) => window(sa) - window(sb) || a.bm - b.bm || a.fr - b.fr)
      .map(([, b]) => b);
  };

  it("keeps the same records in the same order as every row sorted, however the k best are cut", () => {
    const byScore = slowOrder(0);
    expect(byScore.length).toBeGreaterThan(60_000);
    // Few scores, long runs of equal ones: the k-th record falls inside a run.
    expect(new Set(byScore.map((b) => b.bm)).size).toBeLessThan(40);
    const k4096 = byScore[4095]!.bm;
    expect(byScore[4094]!.bm === k4096 || byScore[4096]!.bm === k4096).toBe(true);
    for (const [k, width, generation] of [
      [4096, 0, 0], // cut every 8,192 records read
      [9_000, 0, 0],
      [33_920, 0, 0],
      [100_000, 0, 0], // more than the records: all of them, in order
      [40_000, 1, 0], // windows of one record: 80,000 keys when first cut, more than counted (sorted instead)
      [4096, 1_000, 0],
    ] as [number, number, number][]) {
      const order = width === 0 ? byScore : slowOrder(width);
      const inC = answeredRead((sql) => raw.prepare(sql), read({ k, lo: 1, width, generation }), ANSWERED_HELPERS);
      expect(inC.records, `${k} ${width}`).toBe(order.length);
      expect(Array.from(inC.fr), `${k} ${width}`).toEqual(order.slice(0, k).map((b) => b.fr));
      expect(Array.from(inC.bm), `${k} ${width}`).toEqual(order.slice(0, k).map((b) => b.bm));
    }
  });

  it("keeps the same records when the ranges are read out of rowid order", () => {
    const byScore = slowOrder(0);
    const { sql, params } = readStatementSql(
      {
        name: "answeredRows",
        scoring: "tessera_bm25",
        // The word's row count (its idf), as answeredRead gives it.
        scoreArgs: [raw.prepare(`SELECT count(*) FROM records_fts WHERE records_fts MATCH '"alpha"'`).pluck().get() as number],
        // The second half first.
        spans: [
          [45_001 * 1024, RECORDS * 1024 + 1023],
          [1024, 45_000 * 1024 + 1023],
        ],
        expression: '"alpha"',
        field: null,
        seqs: [],
        members: { first: 1, bits: new Uint8Array((RECORDS >> 3) + 1).fill(255), every: true },
        top: { k: 9_000, lo: 1, width: 0, generation: 0 },
      },
      filterSql,
    );
    expect(sql).not.toContain("tessera_seq_in"); // every seq a candidate: no test before tessera_answered
    raw
      .prepare(sql)
      .raw()
      .all(...params);
    const d = new Float64Array(Uint8Array.from(raw.prepare("SELECT tessera_answered_result()").pluck().get() as Uint8Array).buffer);
    expect(d[0]).toBe(byScore.length);
    expect(Array.from(d.subarray(3, 3 + d[1]!))).toEqual(byScore.slice(0, 9_000).map((b) => b.fr));
    expect(Array.from(d.subarray(3 + d[1]!))).toEqual(byScore.slice(0, 9_000).map((b) => b.bm));
  });
});
