import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openEmbeddedStore, rawSqliteOf, type Store } from "../db/database.js";
import { loadRankExtension, RANK_EXTENSION_VERSION, rankExtensionFile, textRankingOf } from "./rank-extension.js";
import { pastPrefix, phrasesOf, prefixTermsExpression, rankArguments } from "./phrase-rows.js";
import { extensionWindows, rankWindows, WINDOW_STEPS } from "./text-window.js";

/**
 * tessera_bm25 (native/tessera_rank.c) against FTS5's own bm25() on a real index (the store's records_fts,
 * its tokenizer and prefix index): several phrases with their row counts give bm25's scores to the last
 * bit; one phrase without counts gives bm25's order, its scores divided by the phrase's idf.
 */
describe("the ranking extension (tessera_bm25)", () => {
  let dir: string;
  let store: Store;
  let raw: SQLite.Database;
  const vocabulary = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "café", "naïve", "Straße", "x-ray", "alphabet", "alpine"];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-rank-"));
    store = await openEmbeddedStore(dir);
    raw = rawSqliteOf(store.db)!;
    // Rows of varied lengths and frequencies (a deterministic generator), some deleted (contentless_delete's tombstones).
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const insert = raw.prepare("INSERT INTO fts.records_fts (rowid, content, field) VALUES (?, ?, ?)");
    raw.transaction(() => {
      for (let seq = 1; seq <= 600; seq++)
        for (let i = 0; i < 2; i++) {
          const n = 3 + Math.floor(next() * 40);
          const words = Array.from({ length: n }, () => vocabulary[Math.floor(next() ** 2 * vocabulary.length)]!);
          insert.run(seq * 1024 + i, words.join(" "), i === 0 ? "text" : "summary");
        }
    })();
    // Long rows (128+ tokens: lengths of several bytes in records_fts_docsize), after the others.
    raw.transaction(() => {
      for (let seq = 601; seq <= 640; seq++) {
        const n = 100 + Math.floor(next() * 20_000);
        insert.run(seq * 1024, Array.from({ length: n }, () => vocabulary[Math.floor(next() ** 2 * vocabulary.length)]!).join(" "), "text");
      }
    })();
    for (let seq = 5; seq <= 600; seq += 37)
      raw.prepare("DELETE FROM fts.records_fts WHERE rowid BETWEEN ? AND ?").run(seq * 1024, seq * 1024 + 1023);
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rowsOf = (sql: string, params: unknown[]) =>
    raw
      .prepare(sql)
      .raw()
      .all(...params) as [number, number][];
  const count = (phrase: string) => raw.prepare("SELECT count(*) FROM records_fts WHERE records_fts MATCH ?").pluck().get(phrase) as number;

  it("is built at install and loaded on the store's connection", () => {
    expect(rankExtensionFile()).toMatch(/native\/build\/tessera_rank\.so$/);
    expect(textRankingOf(store.db)).toEqual({ scoring: "tessera_bm25", file: rankExtensionFile(), reason: null });
  });

  it("scores several phrases exactly as bm25() when given their row counts", () => {
    const queries = [
      `"alpha" "beta"`,
      `"gamma" "alpha" "delta"`,
      `"zeta" "epsilon"`,
      `"café" "naive"`,
      `"alp"* "beta"`,
      `"x-ray" "gamma"`,
      `"STRASSE" "alpha"`,
      `"straße" "alpha"`,
    ];
    let compared = 0;
    for (const q of queries) {
      const counts = phrasesOf(q).map(count);
      const bm25 = rowsOf("SELECT rowid, bm25(records_fts) FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid", [q]);
      const ours = rowsOf(
        `SELECT rowid, tessera_bm25(records_fts${", ?".repeat(counts.length)}) FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid`,
        [...counts, q],
      );
      expect(ours).toEqual(bm25); // same rows, bit for bit the same scores
      compared += bm25.length;
      // A count that is off changes the scores: the arguments are what the scores follow.
      const off = rowsOf(
        `SELECT rowid, tessera_bm25(records_fts${", ?".repeat(counts.length)}) FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid`,
        [...counts.map((n, i) => (i === 0 ? Math.max(1, Math.floor(n / 3)) : n)), q],
      );
      if (bm25.length > 0) expect(off).not.toEqual(bm25);
    }
    expect(compared).toBeGreaterThan(500);
  });

  it("gives one phrase (a word, a prefix, a quoted phrase, a non-ASCII word) bm25's order without a count, its scores divided by the idf", () => {
    const rows = raw.prepare("SELECT count(*) FROM records_fts").pluck().get() as number;
    for (const q of [`"gamma"`, `"alp"*`, `"alph"*`, `"alphab"*`, `"x-ray"`, `"naïve"`, `"zeta"`]) {
      const n = count(q);
      const raw25 = Math.log((rows - n + 0.5) / (n + 0.5));
      const idf = raw25 <= 0 ? 1e-6 : raw25; // fts5_aux.c's floor
      const order = (sql: string) => rowsOf(`${sql} ORDER BY 2, 1`, [q]);
      const bm25 = order("SELECT rowid, bm25(records_fts) FROM records_fts WHERE records_fts MATCH ?");
      const ours = order("SELECT rowid, tessera_bm25(records_fts) FROM records_fts WHERE records_fts MATCH ?");
      expect(bm25.length).toBeGreaterThan(10);
      expect(ours.map((r) => r[0])).toEqual(bm25.map((r) => r[0]));
      for (const [i, [, score]] of ours.entries()) expect(score).toBeCloseTo(bm25[i]![1] / idf, 9);
    }
  });

  it("scores a prefix's terms ORed, without counts, exactly as the prefix: one phrase whose instances are all of theirs", () => {
    raw.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.records_fts_vocab USING fts5vocab(fts, records_fts, row)");
    for (const prefix of ["alp", "alph", "alphab", "epsil", "x"]) {
      const terms = raw
        .prepare("SELECT term FROM temp.records_fts_vocab WHERE term >= ? AND term < ? ORDER BY term")
        .pluck()
        .all(prefix, pastPrefix(prefix)) as string[];
      const group = prefixTermsExpression(terms)!;
      expect(phrasesOf(group)).toEqual([group]);
      const scored = (q: string) =>
        rowsOf("SELECT rowid, tessera_bm25(records_fts) FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid", [q]);
      const ofPrefix = scored(`"${prefix}"*`);
      expect(ofPrefix.length).toBeGreaterThan(10);
      // Same rows, same scores to the last bit (FTS5's bm25 of the prefix is these divided by its idf: the test above).
      expect(scored(group)).toEqual(ofPrefix);
      if (terms.length > 1)
        expect(scored(group)).not.toEqual(
          rowsOf("SELECT rowid, bm25(records_fts) FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid", [group]),
        );
    }
  });

  it("counts as bm25() does when the counts do not match the query's phrases, and refuses a bad count", () => {
    // "-" has no token: FTS5 drops it, so two counts for one phrase.
    const q = `"alpha" "-"`;
    const bm25 = rowsOf("SELECT rowid, bm25(records_fts) FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid", [q]);
    expect(rowsOf("SELECT rowid, tessera_bm25(records_fts, 5, 6) FROM records_fts WHERE records_fts MATCH ? ORDER BY rowid", [q])).toEqual(
      bm25,
    );
    for (const bad of [-1, 2.5, "many"])
      expect(() =>
        rowsOf(`SELECT rowid, tessera_bm25(records_fts, ?, 3) FROM records_fts WHERE records_fts MATCH '"alpha" "beta"'`, [bad]),
      ).toThrow("tessera_bm25: a phrase's row count must be a non-negative integer");
  });

  it("reads a query's windows in C (tessera_window): rankWindows' answer over tessera_bm25's rows, whatever k, window, start, from and field", () => {
    const range = "records_fts WHERE records_fts MATCH ? AND rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER)";
    const prepare = (sql: string) => raw.prepare(sql);
    let compared = 0;
    let continued = 0;
    for (const q of [
      `"alpha" "beta"`,
      `"gamma" "alpha" "delta"`,
      `"alp"*`,
      `"zeta"`,
      `"café" "naive"`,
      `"nothingsuch"`,
      `"alpha" "nothingsuch"`,
    ]) {
      const phrases = phrasesOf(q);
      const args = phrases.length > 1 ? rankArguments(phrases.map(count)) : [];
      for (const field of [null, "summary"])
        for (const [first, last] of [
          [1, 640],
          [40, 420],
          [590, 640],
        ] as const) {
          const params = [q, first * 1024, last * 1024 + 1023];
          const inOrder = rowsOf(
            `SELECT rowid, tessera_bm25(records_fts${", ?".repeat(args.length)}) FROM ${range}${field ? " AND field = ?" : ""} ORDER BY rowid`,
            [...args, ...params, ...(field ? [field] : [])],
          );
          for (const [k, window, prefixWanted] of [
            [1, 1, 0],
            [10, 7, 0],
            [64, 30, 0],
            [64, 30, 150],
            [5, 1000, 0],
            [2000, 50, 0],
          ] as const) {
            const expected = rankWindows(inOrder, k, window, first, prefixWanted);
            const ours = extensionWindows(prepare, { from: range, params, field }, args, k, window, first, prefixWanted);
            expect(ours, `${q} ${field} ${first} ${k} ${window} ${prefixWanted}`).toEqual(expected);
            compared += expected.read;
            // From a later record (the caller's first queue record), and the windows after those read (the width known).
            const from = first + 45;
            const later = rankWindows(inOrder, k, window, first, prefixWanted, WINDOW_STEPS, from);
            expect(extensionWindows(prepare, { from: range, params, field }, args, k, window, first, prefixWanted, 0, from)).toEqual(later);
            if (later.next !== null) {
              const rest = [q, later.next * 1024, last * 1024 + 1023];
              const after = rankWindows(
                inOrder.filter(([rowid]) => rowid >= later.next! * 1024),
                k,
                window,
                first,
                0,
                WINDOW_STEPS,
                0,
                later.width,
              );
              const ours = extensionWindows(prepare, { from: range, params: rest, field }, args, k, window, first, 0, 0, 0, later.width);
              expect(ours, `${q} ${field} ${first} ${k} ${window} after ${later.next}`).toEqual(after);
              continued++;
            }
          }
        }
    }
    expect(compared).toBeGreaterThan(5000);
    expect(continued).toBeGreaterThan(20);
    // Every score written is tessera_bm25's (several phrases: bm25's), to the last bit.
    const whole = extensionWindows(
      prepare,
      { from: range, params: [`"alpha" "beta"`, 1024, 600 * 1024 + 1023], field: null },
      rankArguments([count(`"alpha"`), count(`"beta"`)]),
      10_000,
      10_000,
      1,
    );
    const bm25 = new Map(rowsOf(`SELECT rowid, bm25(records_fts) FROM ${range}`, [`"alpha" "beta"`, 1024, 600 * 1024 + 1023]));
    expect(whole.fr.length).toBe(bm25.size);
    for (const [i, fr] of whole.fr.entries()) expect(whole.bm[i]).toBe(bm25.get(fr));
    // Bad windows are refused; the connection's state is forgotten with the error (the next read starts clean).
    for (const [k, window] of [
      [0, 10],
      [10, 0],
      [-1, 10],
      [2.5, 10],
    ] as const)
      expect(() =>
        extensionWindows(prepare, { from: range, params: [`"alpha"`, 1024, 600 * 1024 + 1023], field: null }, [], k, window, 1),
      ).toThrow("tessera_window: k, window, lo, prefixWanted, generation, from and width must be non-negative integers");
    for (const [from, width] of [
      [-1, 0],
      [0, -3],
      [1.5, 0],
    ] as const)
      expect(() =>
        extensionWindows(
          prepare,
          { from: range, params: [`"alpha"`, 1024, 600 * 1024 + 1023], field: null },
          [],
          10,
          10,
          1,
          0,
          0,
          from,
          width,
        ),
      ).toThrow("tessera_window: k, window, lo, prefixWanted, generation, from and width must be non-negative integers");
    const none = extensionWindows(prepare, { from: range, params: [`"nothingsuch"`, 1024, 600 * 1024 + 1023], field: null }, [], 10, 10, 1);
    expect(none).toEqual(rankWindows([], 10, 10, 1));
  });

  it("keeps the rows' lengths between reads of one generation (an index version), and reads them again for another", () => {
    const range = "records_fts WHERE records_fts MATCH ? AND rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER)";
    const prepare = (sql: string) => raw.prepare(sql);
    const params = [`"alpha"`, 590 * 1024, 700 * 1024 + 1023];
    const reference = () =>
      rankWindows(rowsOf(`SELECT rowid, tessera_bm25(records_fts) FROM ${range} ORDER BY rowid`, params), 2000, 10_000, 590);
    const windows = (generation: number) =>
      extensionWindows(prepare, { from: range, params, field: null }, [], 2000, 10_000, 590, 0, generation);
    const insert = raw.prepare("INSERT INTO fts.records_fts (rowid, content, field) VALUES (?, ?, ?)");
    const remove = raw.prepare("DELETE FROM fts.records_fts WHERE rowid = ?");
    insert.run(650 * 1024, "alpha alpha", "text");
    try {
      const before = reference();
      expect(before.fr).toContain(650 * 1024);
      expect(windows(7)).toEqual(before);
      expect(windows(7)).toEqual(before); // the lengths kept
      // The row rewritten longer: a read of the same generation keeps its old length (so the caller names each version), another reads it.
      remove.run(650 * 1024);
      insert.run(650 * 1024, `alpha alpha ${"beta ".repeat(300)}`, "text");
      const after = reference();
      expect(after.bm).not.toEqual(before.bm);
      expect(windows(7)).not.toEqual(after);
      expect(windows(8)).toEqual(after);
      expect(windows(0)).toEqual(after);
    } finally {
      remove.run(650 * 1024);
    }
  });

  it("reads the windows of an index elsewhere than the store's `fts` (its rows' lengths from xColumnSize): the same answer", () => {
    const db = new SQLite(":memory:");
    try {
      expect(loadRankExtension(db, "auto").scoring).toBe("tessera_bm25");
      db.exec("CREATE VIRTUAL TABLE records_fts USING fts5(content, field UNINDEXED, content = '', contentless_delete = 1)");
      const insert = db.prepare("INSERT INTO records_fts (rowid, content, field) VALUES (?, ?, ?)");
      for (let seq = 1; seq <= 300; seq++)
        insert.run(
          seq * 1024,
          Array.from({ length: 1 + ((seq * 37) % 200) }, (_, i) => vocabulary[(seq * i) % vocabulary.length]).join(" "),
          "text",
        );
      const range = "records_fts WHERE records_fts MATCH ? AND rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER)";
      for (const q of [`"alpha" "beta"`, `"gamma"`]) {
        const counts = phrasesOf(q).map(
          (p) => db.prepare("SELECT count(*) FROM records_fts WHERE records_fts MATCH ?").pluck().get(p) as number,
        );
        const args = counts.length > 1 ? rankArguments(counts) : [];
        const params = [q, 1024, 300 * 1024 + 1023];
        const inOrder = db
          .prepare(`SELECT rowid, tessera_bm25(records_fts${", ?".repeat(args.length)}) FROM ${range} ORDER BY rowid`)
          .raw()
          .all(...args, ...params) as [number, number][];
        expect(inOrder.length).toBeGreaterThan(20);
        expect(extensionWindows((sql) => db.prepare(sql), { from: range, params, field: null }, args, 10, 20, 1)).toEqual(
          rankWindows(inOrder, 10, 20, 1),
        );
      }
    } finally {
      db.close();
    }
  });

  it("tests an FTS row's record against a bitmap of seqs (tessera_seq_in): the same rows as an IN list of the seqs", () => {
    const has = (bits: Buffer | null, first: number, rowid: number) =>
      raw.prepare("SELECT tessera_seq_in(?, ?, ?)").pluck().get(bits, first, rowid) as number;
    const bits = Buffer.from([0b00000101, 0b10000000]); // seqs 10, 12 and 25 from 10
    expect([9, 10, 11, 12, 13, 24, 25, 26, 1000].map((seq) => has(bits, 10, seq * 1024 + 1))).toEqual([0, 1, 0, 1, 0, 0, 1, 0, 0]);
    expect(has(bits, 10, 10 * 1024 + 1023)).toBe(1); // any field of the record
    expect(has(null, 10, 10 * 1024)).toBe(0);
    expect(has(Buffer.alloc(0), 0, 0)).toBe(0);
    // Over the index: the rows of a few records, read in one range, with the bitmap and with an IN list.
    const seqs = [3, 4, 40, 41, 42, 97, 300, 301, 599];
    const first = seqs[0]!;
    const bitmap = Buffer.alloc(((seqs.at(-1)! - first) >> 3) + 1);
    for (const seq of seqs) bitmap[(seq - first) >> 3]! |= 1 << ((seq - first) & 7);
    for (const q of [`"alpha"`, `"gamma" "beta"`, `"alp"*`, `"nothingsuch"`]) {
      const range = "records_fts MATCH ? AND rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER)";
      const inList = rowsOf(
        `SELECT rowid, bm25(records_fts) FROM records_fts WHERE ${range} AND (rowid >> 10) IN (SELECT value FROM json_each(?)) ORDER BY rowid`,
        [q, first * 1024, 600 * 1024, JSON.stringify(seqs)],
      );
      const ours = rowsOf(
        `SELECT rowid, bm25(records_fts) FROM records_fts WHERE ${range} AND tessera_seq_in(?, ?, rowid) ORDER BY rowid`,
        [q, first * 1024, 600 * 1024, bitmap, first],
      );
      expect(ours).toEqual(inList);
      if (q !== `"nothingsuch"`) expect(ours.length).toBeGreaterThan(0);
    }
  });

  it("falls back to bm25() when switched off, not built or not loadable, and says so once", () => {
    const db = new SQLite(":memory:");
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      expect(loadRankExtension(db, "bm25")).toEqual({ scoring: "bm25", file: null, reason: "TESSERA_TEXT_RANKING=bm25" });
      expect(rankExtensionFile(join(dir, "nowhere"))).toBeNull();
      mkdirSync(join(dir, "broken", "native", "build"), { recursive: true });
      writeFileSync(join(dir, "broken", "native", "build", "tessera_rank.so"), "not a shared library");
      const broken = rankExtensionFile(join(dir, "broken", "a", "b"));
      expect(broken).toBe(join(dir, "broken", "native", "build", "tessera_rank.so"));
      expect(loadRankExtension(db, "auto", broken)).toEqual({ scoring: "bm25", file: null, reason: "the ranking extension did not load" });
      expect(loadRankExtension(db, "auto", null)).toEqual({ scoring: "bm25", file: null, reason: "the ranking extension is not built" });
      // A loadable file without tessera_seq_in (an extension built from an older source; here sqlite-vec's): not used.
      const { getLoadablePath } = createRequire(import.meta.url)("sqlite-vec") as { getLoadablePath: () => string };
      expect(loadRankExtension(db, "auto", getLoadablePath())).toEqual({
        scoring: "bm25",
        file: null,
        reason: "the ranking extension is out of date",
      });
      // One of another version (an older source's arguments), or built before the version function: not used either.
      const source = readFileSync(join(dirname(rankExtensionFile()!), "..", "tessera_rank.c"), "utf8");
      expect(source).toContain(`#define TESSERA_RANK_VERSION ${RANK_EXTENSION_VERSION}\n`); // the server's and the source's agree
      const headers = join(dirname(createRequire(import.meta.url).resolve("better-sqlite3/package.json")), "deps", "sqlite3");
      const built = (name: string, changed: string) => {
        expect(changed).not.toEqual(source);
        mkdirSync(join(dir, name));
        const file = join(dir, name, "tessera_rank.so"); // its entry point follows from the file's name
        writeFileSync(join(dir, name, "source.c"), changed);
        const cc = spawnSync(
          process.env.CC ?? "cc",
          ["-O0", "-fPIC", "-shared", "-I", headers, join(dir, name, "source.c"), "-o", file, "-lm"],
          {
            encoding: "utf8",
          },
        );
        expect(cc.status, cc.stderr).toBe(0);
        return file;
      };
      const outOfDate = { scoring: "bm25", file: null, reason: "the ranking extension is out of date" };
      expect(
        loadRankExtension(db, "auto", built("v1", source.replace(/#define TESSERA_RANK_VERSION \d+/, "#define TESSERA_RANK_VERSION 1"))),
      ).toEqual(outOfDate);
      const unversioned = source.replace(
        /int rc = sqlite3_create_function\(db, "tessera_rank_version"[^;]*;\n\s*if \(rc != SQLITE_OK\) return rc;\n\s*rc = /,
        "int rc = ",
      );
      expect(loadRankExtension(db, "auto", built("unversioned", unversioned))).toEqual(outOfDate);
      // This source as it is: used.
      const fresh = new SQLite(":memory:");
      try {
        const file = built("current", `${source}\n`);
        expect(loadRankExtension(fresh, "auto", file)).toEqual({ scoring: "tessera_bm25", file, reason: null });
      } finally {
        fresh.close();
      }
      expect(log).toHaveBeenCalledTimes(1);
      expect(String(log.mock.calls[0]![0])).toContain("ranking with FTS5's bm25()");
      expect(() => db.prepare("SELECT tessera_bm25(1)").get()).toThrow();
    } finally {
      log.mockRestore();
      db.close();
    }
  });
});
