import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { filterSql, FTS_ROWID_RANGE } from "./sqlite-sql.js";
import { type ReadStatement, readStatementSql } from "./read-statements.js";
import { type AnsweredRead, answeredRanges, answeredRead } from "./sqlite-text-answered.js";
import { LENGTH_BATCH_SEQS, loadRowLengths, rowLengthsReady } from "./row-lengths.js";
import { appendSeq, extensionWindows, rankWindows, sortWindow, windowOf } from "./text-window.js";
import {
  countPhraseRows,
  listPrefixTerms,
  pastPrefix,
  phraseKey,
  phraseRows,
  phraseScore,
  phrasesOf,
  rankArguments,
  scoreSql,
  VOCAB_SQL,
} from "./phrase-rows.js";
import { planeScorer, PLANES_MODULE, queryPlanes } from "./bit-planes.js";
import { addToCentroid, farScan, type FarScanData, farSidePart, type FarSideJob, leastCosts, residualCode } from "./knn-ivf.js";

/**
 * The embedded store's read threads: read-only connections of their own (WAL: readers do not wait for
 * the writer) that run the heavy reads of searches, so that the request thread stays free for everyone
 * else's calls and a second core does the work: the FTS part of text searches not cached yet (below),
 * least similar's far side and scans (knn-ivf.ts) and its candidates' reads (sqlite-knn.ts).
 *
 * Text: the FTS part of a search that is not cached yet (a word never asked before). At 1M
 * records, a word in 80% of them costs ~150 ms to list its matching records and ~380 ms for FTS5 to
 * score every match with bm25 (docs/performance.md): on the request thread, every other annotator's
 * call waited behind it.
 *
 * A job reads, in one read transaction, the index's version (the blocks sqlite-text.ts versions its
 * cache with), the distinct matching seqs and the best `limit` FTS rows by bm25, with the same SQL as
 * the request thread's path. The caller adopts the answer only if the version is still the current one
 * (sqlite-text.ts); otherwise it computes on its own connection as before. So the answers are the same.
 */
export interface MatchJob {
  expression: string;
  /** FTS rowid range (seq * 1024 .. seq * 1024 + 1023 of the dataset's first and last record). */
  lo: number;
  hi: number;
  /** The field's name, or its position in every record of the range (sqlite-text-field.ts), or null: any field. */
  field: string | number | null;
  /** Distinct matching seqs wanted (the queue's total). */
  seqs: boolean;
  /** Best FTS rows by bm25 wanted (0: none). */
  ranked: number;
  /** The first distinct matching seqs in rowid order wanted, at least this many unless there are fewer (0: none): a bounded total's walk (sqlite-text.ts). */
  prefix?: number;
  /**
   * A windowed read's prefix stops once this many of its seqs are not in `excluded` (the queue's exclusions, in order):
   * the records a bounded total's walk needs (sqlite-text.ts), rather than `prefix` (its cap) whatever they pass. 0 or absent: `prefix`.
   */
  passing?: number;
  excluded?: Uint32Array;
  /** Records per window of the order (text-window.ts: ranked window by window; 0 or absent: FTS5's full ranking). */
  window?: number;
  /** A windowed read's rows of records before this seq are not scored (rankWindows' `from`: the caller's first queue record). */
  from?: number;
  /**
   * A windowed read of the windows after those read before: from this seq (a window's first), with the windows' width known;
   * no prefix then (the first matches are those of a read from the range's first record).
   */
  start?: { seq: number; width: number };
  /** The windows scored with tessera_bm25 (rank-extension.ts) instead of bm25(), with the phrases' row counts known (absent: bm25()). */
  ranking?: PhraseRowsKnown;
}

/**
 * The row counts of phrases the caller knows (phrase-rows.ts, by phraseKey), valid at the index version
 * `version` (the cache's version blocks): a job whose read transaction sees another version counts them
 * all again; it counts the phrases missing here, and answers every phrase's count (`phraseRows`).
 */
export interface PhraseRowsKnown {
  version: Buffer | null;
  rows: Record<string, number>;
}

/** The terms of the index in at least `minRows` FTS rows (fts5vocab), most frequent first, with their rows (`docs`), read with the index's version. */
export interface TermsAnswer {
  version: Buffer;
  terms: string[];
  docs: number[];
}

/** The best `k` FTS rows by bm25 of each expression in the range, as MatchJob's `ranked` (same SQL), in one read transaction. */
export interface RankJob {
  expressions: string[];
  lo: number;
  hi: number;
  k: number;
}
export interface RankAnswer {
  version: Buffer;
  ranked: { fr: Float64Array; bm: Float64Array }[];
}

/**
 * The FTS rows and scores of a text query in the caller's answered records (sqlite-text-answered.ts answeredRead), in one
 * read transaction, with the phrases' row counts the caller knows at `ranking.version` (the others counted here).
 */
export interface AnsweredJob {
  read: Omit<AnsweredRead, "known">;
  ranking: PhraseRowsKnown;
}

export interface MatchAnswer {
  version: Buffer;
  seqs: Uint32Array | null;
  ranked: { fr: Float64Array; bm: Float64Array } | null;
  /** A windowed read's whole windows (MatchJob.window): all of the order's rows from `from` read, or where the next window starts, and its width. */
  windows: { complete: boolean; next: number | null; width: number } | null;
  /** The first distinct matching seqs (MatchJob.prefix), `complete` when they are all of them. */
  prefix: { seqs: Uint32Array; complete: boolean } | null;
  /** FTS rows the job scored in windows (MatchJob.window; tests, diagnostics: none twice in a search). */
  scoredRows: number;
  /** The row counts of the expression's phrases at `version` (MatchJob.ranking), those counted by the job in `counted`. */
  phraseRows: Record<string, number> | null;
  counted: number;
}

/**
 * The key of a job (sqlite-text.ts: concurrent searches of the same job wait for one answer), its
 * exclusions by a SHA-1 digest of their seqs: a job's prefix stops where enough records pass *its*
 * exclusions, so callers excluding other records must not share it (hashing 10,000 seqs: ~20 us).
 */
export function matchJobKey(job: Omit<MatchJob, "ranking">): string {
  const { excluded, ...rest } = job;
  const digest = excluded
    ? createHash("sha1")
        .update(new Uint8Array(excluded.buffer, excluded.byteOffset, excluded.byteLength))
        .digest("hex")
    : "";
  return JSON.stringify({ ...rest, excluded: digest });
}

/** Worker code (CommonJS, evaluated: the server is bundled into one file; as text-index.ts). */
const source = `
const { parentPort, workerData } = require("node:worker_threads");
const SQLite = require(workerData.module);
const db = new SQLite(workerData.mainFile, { readonly: true, fileMustExist: true });
db.pragma("busy_timeout = 5000");
db.prepare("ATTACH DATABASE ? AS fts").run(workerData.ftsFile);
const version = db.prepare("SELECT block FROM fts.records_fts_data WHERE id IN (1, 10) ORDER BY id").pluck();
const begin = db.prepare("BEGIN"), commit = db.prepare("COMMIT");
const statements = new Map();
const prepared = (sql) => {
  let s = statements.get(sql);
  if (!s) { s = db.prepare(sql); statements.set(sql, s); }
  return s;
};
let vocab = null;
const VOCAB_SQL = ${JSON.stringify(VOCAB_SQL)};
const vocabTable = () => db.exec(VOCAB_SQL.table);
// The ranking extension (rank-extension.ts): loaded when the request thread loaded it, so both score alike.
let ranker = false;
if (workerData.rankExtension) {
  try { db.loadExtension(workerData.rankExtension); ranker = true; } catch { /* jobs asking for it fail: the request thread computes them */ }
}
// phrase-rows.ts' functions, as the request thread calls them.
const phraseHelpers = {
  phrasesOf: ${phrasesOf.toString()},
  phraseKey: ${phraseKey.toString()},
  countPhraseRows: ${countPhraseRows.toString()},
  rankArguments: ${rankArguments.toString()},
  scoreSql: ${scoreSql.toString()},
  pastPrefix: ${pastPrefix.toString()},
  phraseRows: ${phraseRows.toString()},
  vocab: VOCAB_SQL,
};
const phraseScore = ${phraseScore.toString()};
const listPrefixTerms = ${listPrefixTerms.toString()};
/**
 * A job's score (SQL and its arguments, bound first) and the phrases' row counts: bm25() without job.ranking; else
 * tessera_bm25 with the counts the caller knows at this transaction's version, the others counted here.
 */
const scoreOf = (job, blocks) => {
  if (!job.ranking) return { sql: phraseHelpers.scoreSql("bm25", 0), args: [], rows: null, counted: 0 };
  if (!ranker) throw new Error("the ranking extension is not loaded on this thread");
  const known = job.ranking.version && Buffer.from(job.ranking.version).equals(Buffer.concat(blocks)) ? job.ranking.rows : {};
  return phraseScore(prepared, job.expression, (key) => known[key], phraseHelpers);
};
/** The index version's generation on this thread (the rows' lengths tessera_window keeps are those of one: text-window.ts). */
let generation = { blocks: null, n: 0 };
const generationOf = (blocks) => {
  const v = Buffer.concat(blocks);
  if (!generation.blocks || !generation.blocks.equals(v)) generation = { blocks: v, n: generation.n + 1 };
  return generation.n;
};
/** Whether a windowed read scores its rows (the \`tessera_scoring()\` of its SQL): off for the records beyond the windows. */
let scoring = true;
db.function("tessera_scoring", { deterministic: false }, () => (scoring ? 1 : 0));
const rankWindows = ${rankWindows.toString()};
const windowSteps = { sortWindow: ${sortWindow.toString()}, appendSeq: ${appendSeq.toString()}, windowOf: ${windowOf.toString()} };
const extensionWindows = ${extensionWindows.toString()};
const filterSql = ${filterSql.toString()};
const readStatementSql = ${readStatementSql.toString()};
const answeredRead = ${answeredRead.toString()};
// Every row's length of a deep read's dataset (row-lengths.ts): loaded after a deep read at a new index version, in
// batches between the thread's other jobs, each in a read transaction at that version.
const rowLengthsReady = ${rowLengthsReady.toString()};
const loadRowLengths = ${loadRowLengths.toString()};
let rowLengths = null;
const loadLengths = (generationWanted, lo, hi) => {
  if (rowLengths && rowLengths.generation === generationWanted && rowLengths.lo <= lo && rowLengths.hi >= hi) return;
  const state = { generation: generationWanted, lo, hi, next: lo };
  rowLengths = state;
  const step = () => {
    if (rowLengths !== state) return;
    let more = false;
    begin.run();
    try {
      if (generationOf(version.all()) === state.generation)
        more = loadRowLengths(state, (...args) => prepared("SELECT tessera_lengths_load(?, ?, ?, ?, ?)").pluck().get(...args), ${LENGTH_BATCH_SEQS});
      else rowLengths = null; // the index moved: the next deep read loads the new version's
    } catch {
      rowLengths = null;
    } finally {
      commit.run();
    }
    if (more) setImmediate(step);
  };
  setImmediate(step);
};
const answeredHelpers = { phrase: phraseHelpers, ranges: ${answeredRanges.toString()}, statementSql: readStatementSql, filter: filterSql };
const farSidePart = ${farSidePart.toString()};
const residualCode = ${residualCode.toString()};
const addToCentroid = ${addToCentroid.toString()};
const farScan = ${farScan.toString()};
const farScanHelpers = {
  planes: ${queryPlanes.toString()},
  scorer: (${planeScorer.toString()})(Uint8Array.from(${JSON.stringify(Array.from(PLANES_MODULE))})),
  least: ${leastCosts.toString()},
};
const reply = (id, blocks, payload, transfer) => {
  const v = Buffer.concat(blocks);
  const buffer = new Uint8Array(v.length);
  buffer.set(v);
  parentPort.postMessage({ id, version: buffer, ...payload }, [buffer.buffer, ...transfer]);
};
const ranked = (where, params, k) => {
  const rows = prepared("SELECT rowid AS fr, bm25(records_fts) AS bm FROM " + where + " ORDER BY bm, rowid LIMIT ?").raw().all(...params, k);
  return { fr: Float64Array.from(rows, (r) => r[0]), bm: Float64Array.from(rows, (r) => r[1]) };
};
let vec = false;
parentPort.on("message", (job) => {
  if (job.type === "close") { db.close(); process.exit(0); }
  if (job.type === "farside") {
    // A similarity index's far side (knn-ivf.ts), in batches that yield to this thread's other jobs.
    const pause = (ms) => new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));
    farSidePart(job, (sql, params) => prepared(sql).raw().all(...params), pause, residualCode, addToCentroid).then(
      (far) => parentPort.postMessage({ id: job.id, far }),
      (error) => parentPort.postMessage({ id: job.id, error: String(error && error.message || error) }),
    );
    return;
  }
  try {
    if (job.type === "far") {
      // least_similar's lists (knn-ivf.ts), read from the index's shared memory.
      const r = farScan(job.data, job.values, job.target, job.count, farScanHelpers);
      parentPort.postMessage({ id: job.id, fr: r.vrows, bm: r.costs, scanned: r.scanned }, [r.vrows.buffer, r.costs.buffer]);
      return;
    }
    if (job.type === "rows") {
      // Another search's read (sqlite-knn.ts: similarity candidates rescored and filtered), with sqlite-vec's functions:
      // a named statement built here (read-statements.ts), never SQL sent by the request thread; an unknown name fails.
      const { sql, params } = readStatementSql(job.statement, filterSql);
      if (!vec) { require(workerData.vecModule).load(db); vec = true; }
      parentPort.postMessage({ id: job.id, rows: prepared(sql).all(...params) });
      return;
    }
    if (job.type === "terms") {
      // The temp schema is writable on a read-only connection; fts5vocab counts each term's rows by reading its doclist.
      vocab ??= (vocabTable(), db.prepare("SELECT term, doc FROM temp.records_fts_vocab WHERE doc >= ? ORDER BY doc DESC").raw());
      begin.run();
      let blocks, rows;
      try {
        blocks = version.all();
        rows = vocab.all(job.minRows);
      } finally {
        commit.run();
      }
      reply(job.id, blocks, { terms: rows.map((r) => r[0]), docs: rows.map((r) => r[1]) }, []);
      return;
    }
    if (job.type === "prefixTerms") {
      // A prefix's terms in the index, at most job.max + 1 of them.
      begin.run();
      let blocks, terms;
      try {
        blocks = version.all();
        // The known terms are the index's at job.version only (listed without being read: phrase-rows.ts).
        const known = job.version && Buffer.from(job.version).equals(Buffer.concat(blocks)) ? job.known : [];
        terms = listPrefixTerms(prepared, job.prefix, job.max, phraseHelpers, known);
      } finally {
        commit.run();
      }
      reply(job.id, blocks, { terms }, []);
      return;
    }
    if (job.type === "lengths") {
      // The table of every row's length of the seqs job.lo..job.hi at the index's version, loaded in the background.
      let gen;
      begin.run();
      try {
        gen = generationOf(version.all());
      } finally {
        commit.run();
      }
      if (ranker) loadLengths(gen, job.lo, job.hi);
      parentPort.postMessage({ id: job.id });
      return;
    }
    if (job.type === "answered") {
      begin.run();
      let blocks, read, deep = null, lengthsFull = false;
      try {
        blocks = version.all();
        if (!ranker && (job.read.members || (job.read.scoring !== null && job.read.scoring !== "bm25")))
          throw new Error("the ranking extension is not loaded on this thread");
        const known = job.ranking.version && Buffer.from(job.ranking.version).equals(Buffer.concat(blocks)) ? job.ranking.rows : {};
        // The rows' lengths tessera_answered reads are kept at this transaction's index version (as tessera_window's); a deep
        // read (lengthsKept false) keeps none, reading them from the table of every row's length when it is this version's.
        const gen = generationOf(blocks), t = job.read.top;
        deep = t && t.lengthsKept === false ? { lo: t.lo, hi: t.lo + job.read.records - 1 } : null;
        lengthsFull = deep !== null && ranker && rowLengthsReady(rowLengths, gen, deep.lo, deep.hi);
        const top = t ? { ...t, generation: deep && !lengthsFull ? 0 : gen } : null;
        read = answeredRead(prepared, { ...job.read, known, top }, answeredHelpers);
        if (deep && ranker && !lengthsFull) loadLengths(gen, deep.lo, deep.hi);
      } finally {
        commit.run();
      }
      reply(job.id, blocks, { fr: read.fr, bm: read.bm, records: read.records, phraseRows: read.phraseRows, counted: read.counted, lengthsFull }, [read.fr.buffer, read.bm.buffer]);
      return;
    }
    if (job.type === "rank") {
      const where = "records_fts WHERE records_fts MATCH ? AND ${FTS_ROWID_RANGE}";
      begin.run();
      let blocks;
      const out = [];
      try {
        blocks = version.all();
        for (const expression of job.expressions) out.push(ranked(where, [expression, job.lo, job.hi], job.k));
      } finally {
        commit.run();
      }
      reply(job.id, blocks, { rankedMany: out }, out.flatMap((r) => [r.fr.buffer, r.bm.buffer]));
      return;
    }
    const ftsFrom = "records_fts WHERE records_fts MATCH ? AND ${FTS_ROWID_RANGE}";
    const where = ftsFrom + (job.field === null ? "" : typeof job.field === "number" ? " AND (rowid & 1023) = ?" : " AND field = ?");
    const params = [job.expression, job.lo, job.hi, ...(job.field !== null ? [job.field] : [])];
    begin.run();
    let blocks, seqs = null, fr = null, bm = null, windows = null, prefix = null, prefixComplete = false, scoredRows = 0, phraseRows = null, counted = 0;
    try {
      blocks = version.all();
      if (job.window > 0 && job.ranked > 0) {
        const score = scoreOf(job, blocks);
        phraseRows = score.rows;
        counted = score.counted;
        // Ranked window by window (text-window.ts), as few windows as the rows wanted: bm25 of every row read costs (~1.6 us a row
        // at 1M records). With tessera_bm25 the windows are read in C (extensionWindows), and the records a bounded total needs
        // beyond them by a statement of their own without scores; with bm25() in JavaScript, the records beyond from the same
        // statement (bm25 only while \`scoring\`): a prefix without a prefix index of its length merges its terms' doclists once per statement.
        // From the caller's first queue record on (job.from), or the windows after those read before (job.start).
        const lo = Math.floor(job.lo / 1024), from = job.from || 0, start = job.start || null;
        const first = start ? start.seq * 1024 : job.lo, width = start ? start.width : 0;
        let it = null, beyond;
        try {
          let w;
          if (job.ranking) {
            w = extensionWindows(prepared, { from: ftsFrom, params: [job.expression, first, job.hi], field: job.field }, score.args, job.ranked, job.window, lo, 0, generationOf(blocks), from, width);
            const last = w.prefix.length > 0 ? w.prefix[w.prefix.length - 1] : lo - 1;
            beyond = () => {
              it ??= prepared("SELECT rowid >> 10 FROM " + where + " ORDER BY rowid").pluck().iterate(job.expression, Math.max(job.lo, (last + 1) * 1024), job.hi, ...(job.field !== null ? [job.field] : []));
              return it.next();
            };
          } else {
            it = prepared("SELECT rowid, CASE WHEN tessera_scoring() THEN " + score.sql + " END FROM " + where + " ORDER BY rowid").raw().iterate(...score.args, job.expression, first, job.hi, ...(job.field !== null ? [job.field] : []));
            // No return(): rankWindows' break leaves the statement open for the records beyond the windows.
            w = rankWindows({ [Symbol.iterator]: () => ({ next: () => it.next() }) }, job.ranked, job.window, lo, 0, windowSteps, from, width);
            beyond = () => {
              scoring = false;
              const next = it.next();
              return next.done ? next : { done: false, value: Math.floor(next.value[0] / 1024) };
            };
          }
          ({ fr, bm } = w);
          windows = { complete: w.complete, next: w.next, width: w.width };
          scoredRows = w.fr.length;
          if (job.prefix > 0 && !start) {
            prefixComplete = w.prefixComplete;
            // The records passing the caller's exclusions (sorted seqs, read in step with the matches): enough once job.passing.
            const excluded = job.excluded || new Uint32Array(0);
            let x = 0, passed = 0;
            const passes = (seq) => { while (x < excluded.length && excluded[x] < seq) x++; return x < excluded.length && excluded[x] === seq ? 0 : 1; };
            const enough = () => job.passing > 0 && passed >= job.passing;
            if (job.passing > 0) for (const seq of w.prefix) passed += passes(seq);
            if (w.prefixComplete || w.prefix.length >= job.prefix || enough()) prefix = w.prefix;
            else {
              let out = new Uint32Array(job.prefix + 16), n = w.prefix.length;
              out.set(w.prefix);
              for (;;) {
                const next = beyond();
                if (next.done) { prefixComplete = true; break; }
                const seq = next.value;
                if (out[n - 1] === seq) continue;
                if (n >= job.prefix) break;
                if (n === out.length) { const grown = new Uint32Array(out.length * 2); grown.set(out); out = grown; }
                out[n++] = seq;
                if (job.passing > 0 && (passed += passes(seq)) >= job.passing) break;
              }
              prefix = out.slice(0, n);
            }
          }
        } finally {
          if (it) it.return();
          scoring = true;
        }
      }
      if (job.prefix > 0 && prefix === null) {
        // In chunks of the records still wanted (x 1.25 FTS rows: a record may match in several fields), each from the record after the last one read.
        const chunk = prepared("SELECT rowid >> 10 FROM " + where + " ORDER BY rowid LIMIT ?");
        let out = new Uint32Array(job.prefix + 16), n = 0, from = job.lo;
        for (;;) {
          const want = Math.ceil((job.prefix - n) * 1.25) + 16;
          const rows = chunk.pluck().all(job.expression, from, job.hi, ...(job.field !== null ? [job.field] : []), want);
          for (const seq of rows)
            if (n === 0 || out[n - 1] !== seq) {
              if (n === out.length) { const grown = new Uint32Array(out.length * 2); grown.set(out); out = grown; }
              out[n++] = seq;
            }
          if (rows.length < want) { prefixComplete = true; break; }
          from = (rows[rows.length - 1] + 1) * 1024;
          if (n >= job.prefix) break;
        }
        prefix = out.slice(0, n);
      }
      if (job.seqs) {
        const rows = prepared("SELECT rowid >> 10 FROM " + where + " ORDER BY rowid").pluck().all(...params);
        let n = 0;
        for (const seq of rows) if (n === 0 || seq !== rows[n - 1]) rows[n++] = seq;
        seqs = new Uint32Array(n);
        for (let i = 0; i < n; i++) seqs[i] = rows[i];
      }
      if (job.ranked > 0 && fr === null) ({ fr, bm } = ranked(where, params, job.ranked));
    } finally {
      commit.run();
    }
    reply(job.id, blocks, { seqs, fr, bm, windows, prefix, prefixComplete, scoredRows, phraseRows, counted }, [...(seqs ? [seqs.buffer] : []), ...(fr ? [fr.buffer, bm.buffer] : []), ...(prefix ? [prefix.buffer] : [])]);
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error && error.message || error) });
  }
});
`;

interface Reply {
  id: number;
  error?: string;
  version?: Uint8Array;
  seqs?: Uint32Array | null;
  fr?: Float64Array | null;
  bm?: Float64Array | null;
  windows?: { complete: boolean; next: number | null; width: number } | null;
  prefix?: Uint32Array | null;
  prefixComplete?: boolean;
  scoredRows?: number;
  terms?: string[];
  docs?: number[];
  phraseRows?: Record<string, number> | null;
  counted?: number;
  /** An answered read's records (tessera_answered), null when its rows were returned. */
  records?: number | null;
  /** A deep read's rows' lengths read from the thread's table of every row's length (row-lengths.ts). */
  lengthsFull?: boolean;
  far?: { tailScale: number | null } | null;
  rows?: unknown[];
  scanned?: number;
  rankedMany?: { fr: Float64Array; bm: Float64Array }[];
}

interface Thread {
  worker: Worker;
  busy: number;
}

/** The read threads (lazily started, at most one per core); jobs go to the least busy one. */
export class ReadPool {
  private threads: Thread[] = [];
  private nextId = 1;
  private readonly waiting = new Map<number, { thread: Thread; resolve: (reply: Reply) => void; reject: (e: Error) => void }>();
  private closed = false;
  /** Jobs answered (tests, diagnostics). */
  answered = 0;
  /** Deep reads whose rows' lengths came from a thread's table of every row's length (row-lengths.ts; tests, diagnostics). */
  lengthsFullReads = 0;

  /** At most `size` threads (default: 2, or 1 on a single core; 0: none, the store registers no pool). */
  readonly size: number;
  /** `rankExtension`: the ranking extension's file the threads load (rank-extension.ts), null for none. */
  constructor(
    private readonly files: { mainFile: string; ftsFile: string },
    size?: number,
    private readonly rankExtension: string | null = null,
  ) {
    this.size = size ?? Math.min(2, availableParallelism());
  }

  async run(job: MatchJob): Promise<MatchAnswer> {
    const m = await this.send({ ...job });
    return {
      version: versionOf(m),
      seqs: m.seqs ?? null,
      ranked: m.fr && m.bm ? { fr: m.fr, bm: m.bm } : null,
      windows: m.windows ?? null,
      prefix: m.prefix ? { seqs: m.prefix, complete: m.prefixComplete === true } : null,
      scoredRows: m.scoredRows ?? 0,
      phraseRows: m.phraseRows ?? null,
      counted: m.counted ?? 0,
    };
  }

  /** The index's terms in at least `minRows` FTS rows (search/sqlite-text.ts ranks them ahead). */
  async terms(minRows: number): Promise<TermsAnswer> {
    const m = await this.send({ type: "terms", minRows });
    return { version: versionOf(m), terms: m.terms ?? [], docs: m.docs ?? [] };
  }

  /**
   * The index's terms starting with `prefix`, in order, at most `max` + 1 of them (phrase-rows.ts' listPrefixTerms; sqlite-text.ts
   * expands long prefixes); `known`: terms of the prefix in the index at `version` (sorted), not read if the thread reads that version.
   */
  async prefixTerms(
    prefix: string,
    max: number,
    known: { version: Buffer; terms: string[] } | null = null,
  ): Promise<{ version: Buffer; terms: string[] }> {
    const m = await this.send({ type: "prefixTerms", prefix, max, version: known?.version ?? null, known: known?.terms ?? [] });
    return { version: versionOf(m), terms: m.terms ?? [] };
  }

  /** The FTS rows and scores of a text query in the caller's answered records (sqlite-text-answered.ts answeredRead). */
  async readAnswered(job: AnsweredJob): Promise<{
    version: Buffer;
    fr: Float64Array;
    bm: Float64Array;
    records: number | null;
    phraseRows: Record<string, number>;
    counted: number;
  }> {
    const m = await this.send({ type: "answered", ...job });
    if (m.lengthsFull) this.lengthsFullReads++;
    return {
      version: versionOf(m),
      fr: m.fr ?? new Float64Array(0),
      bm: m.bm ?? new Float64Array(0),
      records: m.records ?? null,
      phraseRows: m.phraseRows ?? {},
      counted: m.counted ?? 0,
    };
  }

  /** The best rows of several expressions, in one read transaction. */
  async rank(job: RankJob): Promise<RankAnswer> {
    const m = await this.send({ type: "rank", ...job });
    return { version: versionOf(m), ranked: m.rankedMany ?? [] };
  }

  /**
   * A thread's share of a similarity index's far side (knn-ivf.ts, `farSidePart`; the job's arrays in
   * shared memory): null when abandoned. Other jobs of that thread run between its batches.
   */
  async farSide(job: FarSideJob): Promise<{ tailScale: number | null } | null> {
    const m = await this.send({ type: "farside", ...job });
    return m.far ?? null;
  }

  /** Whether `close` was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * The rows of a named statement (read-statements.ts) on the main database (sqlite-vec's functions loaded), for
   * other searches' reads off the request thread (sqlite-knn.ts); an unknown name is refused (the promise rejects).
   */
  async rows<T>(statement: ReadStatement): Promise<T[]> {
    const m = await this.send({ type: "rows", statement });
    return (m.rows ?? []) as T[];
  }

  /** least_similar's best candidates of an index's lists (knn-ivf.ts, `farScan`), `data` in shared memory (not copied). */
  async farScan(
    data: FarScanData,
    values: Float64Array,
    target: number,
    count: number,
  ): Promise<{ vrows: Float64Array; costs: Float64Array; scanned: number }> {
    const m = await this.send({ type: "far", data, values, target, count });
    return { vrows: m.fr ?? new Float64Array(0), costs: m.bm ?? new Float64Array(0), scanned: m.scanned ?? 0 };
  }

  /**
   * Every thread loads its table of every row's length of the seqs lo..hi at the index's current version (row-lengths.ts:
   * a plain word's deep read reads its rows' lengths there), in the background between its other jobs.
   */
  async loadRowLengths(lo: number, hi: number): Promise<void> {
    if (this.closed) return;
    while (this.threads.length < this.size) this.spawn();
    await Promise.all(this.threads.map((thread) => this.sendTo(thread, { type: "lengths", lo, hi })));
  }

  private send(message: Record<string, unknown>): Promise<Reply> {
    if (this.closed) return Promise.reject(new Error("the read pool is closed"));
    return this.sendTo(this.thread(), message);
  }

  private sendTo(thread: Thread, message: Record<string, unknown>): Promise<Reply> {
    const id = this.nextId++;
    thread.busy++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { thread, resolve, reject });
      thread.worker.postMessage({ ...message, id });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads;
    this.threads = [];
    await Promise.all(
      threads.map(
        (t) =>
          new Promise<void>((resolve) => {
            t.worker.once("exit", () => resolve());
            t.worker.postMessage({ type: "close" });
          }),
      ),
    );
    for (const w of this.waiting.values()) w.reject(new Error("the read pool is closed"));
    this.waiting.clear();
  }

  private thread(): Thread {
    const idle = this.threads.find((t) => t.busy === 0);
    if (idle) return idle;
    if (this.threads.length < this.size) return this.spawn();
    return this.threads.reduce((a, b) => (b.busy < a.busy ? b : a));
  }

  private spawn(): Thread {
    const require = createRequire(import.meta.url);
    const module = require.resolve("better-sqlite3");
    const vecModule = require.resolve("sqlite-vec");
    const worker = new Worker(source, { eval: true, workerData: { ...this.files, module, vecModule, rankExtension: this.rankExtension } });
    worker.unref();
    const thread: Thread = { worker, busy: 0 };
    worker.on("message", (m: Reply) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      thread.busy--;
      if (m.error !== undefined) return w.reject(new Error(`read thread: ${m.error}`));
      this.answered++;
      w.resolve(m);
    });
    worker.on("error", (error) => {
      // The thread died: its jobs fail (their callers compute on their own connection); a new thread replaces it.
      this.threads = this.threads.filter((t) => t !== thread);
      for (const [id, w] of this.waiting)
        if (w.thread === thread) {
          this.waiting.delete(id);
          w.reject(error);
        }
    });
    this.threads.push(thread);
    return thread;
  }
}

const versionOf = (m: Reply): Buffer => Buffer.from(m.version!.buffer, m.version!.byteOffset, m.version!.byteLength);

const pools = new WeakMap<object, ReadPool>();
/** The embedded store registers its pool (db/database.ts); null for other connections (tests on a bare database). */
export function registerReadPool(db: Kysely<DB>, pool: ReadPool): void {
  pools.set(db, pool);
}
export function readPoolFor(db: Kysely<DB>): ReadPool | null {
  return pools.get(db) ?? null;
}
