import { PHRASE_HELPERS, type PhraseHelpers, type Prepare } from "./phrase-rows.js";
import { type ReadStatement, readStatementSql } from "./read-statements.js";
import { filterSql } from "./sqlite-sql.js";
import type { FtsField } from "./fts-field.js";

/**
 * Candidates further apart than this many records are read in separate FTS5 ranges (answeredRanges): a range's FTS5
 * filter seeks its first row (tens of µs), about what reading ~256 records' matching rows of a common word costs.
 */
export const ANSWERED_GAP = 256;
/** At most this many ranges per statement (the gap doubles until they are few enough). */
export const ANSWERED_RANGES = 1024;
/**
 * The FTS rows whose reading costs what one more range's FTS5 filter costs, with the candidates tested by tessera_seq_in
 * (1M records, 10 segments: a filter ~30 us, ~0.09 us a row read and tested): two runs of candidates are read as one range
 * when the query's rows between them are fewer, estimated from the rarest phrase's rows per record of the dataset.
 */
export const ANSWERED_SEEK_ROWS = 340;

/**
 * The ranges of seqs (first, last) FTS5 reads for these candidates (sorted, at least one): the candidates' runs, two
 * runs at most `gap` seqs apart merged, the gap doubled until there are at most `max` ranges.
 */
export function answeredRanges(seqs: ArrayLike<number>, gap: number, max: number): [number, number][] {
  for (let g = Math.max(1, gap); ; g *= 2) {
    const out: [number, number][] = [];
    let first = seqs[0]!;
    let last = first;
    for (let i = 1; i < seqs.length; i++) {
      const seq = seqs[i]!;
      if (seq - last > g) {
        out.push([first, last]);
        first = seq;
      }
      last = seq;
    }
    out.push([first, last]);
    if (out.length <= max) return out;
  }
}

/** The best FTS row (lowest bm25, then rowid) of each record among FTS rows (rowid, bm25). */
export function bestRows(rows: Iterable<[number, number]>): Map<number, { fr: number; bm: number }> {
  const best = new Map<number, { fr: number; bm: number }>();
  for (const [fr, bm] of rows) {
    const seq = Math.floor(fr / 1024);
    const b = best.get(seq);
    if (!b || bm < b.bm || (bm === b.bm && fr < b.fr)) best.set(seq, { fr, bm });
  }
  return best;
}

/**
 * What answeredRead reads: the FTS rows of `expression` in the records `seqs` (sorted, at least one) of a dataset of
 * `records` seqs (its first to its last), scored by `scoring`: "word", one plain word, by tessera_bm25 with its row
 * count (bm25's score without bm25's count over the whole table in each FTS5 filter); "phrases", another query, by
 * tessera_bm25 with its phrases' row counts when it has several (sqlite-text.ts scoreHere); "bm25", FTS5's bm25()
 * (without the ranking extension; one range: bm25() counts the phrases per filter); null, the number of distinct records.
 */
export interface AnsweredRead {
  expression: string;
  field: FtsField;
  seqs: ArrayLike<number>;
  records: number;
  scoring: "word" | "phrases" | "bm25" | null;
  /** The phrases' row counts known (by phraseKey) at the index version read; the missing ones a score needs are counted. */
  known: Record<string, number>;
  /**
   * Every seq from the first to the second instead of `seqs` (then empty), with `members`: a plain word's deep read
   * (sqlite-text-deep.ts) of a whole dataset, whose ~500K seqs a half cost ~20 ms of CPU to list, send and walk at 1M records.
   */
  span?: [number, number] | null;
  /** The candidates tested by tessera_seq_in (the ranking extension loaded) instead of an IN list. */
  members: boolean;
  /** The ranges' gap (records) when no phrase's row count is known or `seekRows` is 0 (ANSWERED_GAP). */
  gap: number;
  /** ANSWERED_SEEK_ROWS (0: always `gap`). */
  seekRows: number;
  /** ANSWERED_RANGES. */
  maxRanges: number;
  /**
   * With `members`: read in C by tessera_answered (read-statements.ts), which counts the records and keeps the `k` best
   * records' best rows (0: counts only) in the windows' order (`lo`, `width`: text-window.ts windowOf) instead of returning
   * every row; the rows' lengths kept at `generation` (the read threads' index version, 0 on the request thread: none).
   * `lengthsKept: false`: none kept on the read threads either (a plain word's deep read, sqlite-text-deep.ts: most of the
   * range's rows, read once; kept, they filled the threads' table of the windows' lengths and cost more than the seeks).
   */
  top?: { k: number; lo: number; width: number; generation: number; lengthsKept?: boolean } | null;
}

/** What answeredRead needs, passed so that the read threads run the same code from its source. */
export interface AnsweredHelpers {
  phrase: PhraseHelpers;
  ranges: typeof answeredRanges;
  statementSql: typeof readStatementSql;
  filter: typeof filterSql;
}
/** The helpers on the request thread (the read threads evaluate the same functions' sources). */
export const ANSWERED_HELPERS: AnsweredHelpers = {
  phrase: PHRASE_HELPERS,
  ranges: answeredRanges,
  statementSql: readStatementSql,
  filter: filterSql,
};

/**
 * The FTS rows (`fr`, `bm`) of an AnsweredRead on a connection (sqlite-text.ts answeredRows: on a text match thread, or
 * on the request thread), and the phrases' row counts it knew or counted (`counted` of them counted here). FTS5 reads the
 * query's rows in rowid ranges around the candidates (answeredRanges: one filter per range, runs closer than the rows a
 * filter costs read as one range); the rows of records that are not candidates are dropped by tessera_seq_in's bitmap (or
 * the IN list) before they are scored. Self-contained (no closure, no import): the read threads evaluate its source.
 */
export function answeredRead(
  prepare: (sql: string) => ReturnType<Prepare> & { raw(): { all(...params: unknown[]): unknown[] } },
  job: AnsweredRead,
  h: AnsweredHelpers,
): { fr: Float64Array; bm: Float64Array; records: number | null; phraseRows: Record<string, number>; counted: number } {
  const phrases = h.phrase.phrasesOf(job.expression);
  const keys = phrases.map((p) => h.phrase.phraseKey(p));
  let rows: Record<string, number> = {};
  let counted = 0;
  if (job.scoring === "word" || (job.scoring === "phrases" && phrases.length > 1))
    ({ rows, counted } = h.phrase.phraseRows(prepare, phrases, (key) => job.known[key], h.phrase));
  else for (const key of keys) if (job.known[key] !== undefined) rows[key] = job.known[key];
  const scoreArgs =
    job.scoring === "word"
      ? [rows[keys[0]!]!]
      : job.scoring === "phrases" && phrases.length > 1
        ? h.phrase.rankArguments(keys.map((k) => rows[k]!))
        : [];
  const seqs = job.seqs;
  const span = job.members ? (job.span ?? null) : null;
  const first = span ? span[0] : seqs[0]!;
  const last = span ? span[1] : seqs[seqs.length - 1]!;
  // The rarest phrase's rows per record: the query's rows between two runs of candidates.
  const counts = keys.map((k) => rows[k] ?? 0).filter((n) => n > 0);
  const density = counts.length > 0 ? Math.min(...counts) / Math.max(1, job.records) : 0;
  const gap = job.seekRows > 0 && density > 0 ? Math.max(1, Math.floor(job.seekRows / density)) : job.gap;
  const spans = job.scoring === "bm25" || span ? [[first, last]] : h.ranges(seqs, gap, job.maxRanges);
  let members = null;
  if (job.members) {
    const bits = new Uint8Array(((last - first) >> 3) + 1);
    if (span) bits.fill(255);
    else for (let i = 0; i < seqs.length; i++) bits[(seqs[i]! - first) >> 3]! |= 1 << ((seqs[i]! - first) & 7);
    members = { first, bits, every: span !== null };
  }
  const statement: ReadStatement = {
    name: "answeredRows",
    scoring: job.scoring === null ? null : job.scoring === "bm25" ? "bm25" : "tessera_bm25",
    scoreArgs,
    spans: spans.map(([a, b]): [number, number] => [a! * 1024, b! * 1024 + 1023]),
    expression: job.expression,
    field: job.field,
    seqs: members ? [] : Array.from(seqs),
    members,
    top: members ? (job.top ?? null) : null,
  };
  const { sql, params } = h.statementSql(statement, h.filter);
  if (statement.top) {
    let result: Uint8Array;
    try {
      prepare(sql)
        .raw()
        .all(...params);
    } finally {
      // Read (and so forgotten by the connection) even when the statement failed.
      result = prepare("SELECT tessera_answered_result()").pluck().get() as Uint8Array;
    }
    // records, kept, rows read, the kept rowids, the kept scores (native/tessera_rank.c answeredResult).
    const d = new Float64Array(Uint8Array.from(result).buffer);
    const kept = d[1]!;
    return { fr: d.slice(3, 3 + kept), bm: d.slice(3 + kept, 3 + 2 * kept), records: d[0]!, phraseRows: rows, counted };
  }
  const read = prepare(sql)
    .raw()
    .all(...params) as [number, number][];
  const fr = new Float64Array(read.length);
  const bm = new Float64Array(read.length);
  for (let i = 0; i < read.length; i++) {
    fr[i] = read[i]![0];
    bm[i] = read[i]![1];
  }
  return { fr, bm, records: null, phraseRows: rows, counted };
}
