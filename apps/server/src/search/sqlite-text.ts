import type SQLite from "better-sqlite3";
import { rawSqliteOf } from "../db/database.js";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { firstAtLeast, sortedHas } from "./sorted-array.js";
import {
  countLimit,
  filterCountLimit,
  isQueueFilter,
  type SearchFilter,
  type SearchHit,
  type SearchQuery,
  type SearchResult,
  type SearchSort,
} from "./search-port.js";
import { SqliteTextSorted, sortOrderOf } from "./sqlite-text-sorted.js";
import { type QueueExclusions, queueExclusions } from "./sqlite-metadata.js";
import { Builder, FTS_ROWID_RANGE, ftsExpression, orderTerms, type Param, SqliteQueries, splitPending } from "./sqlite-sql.js";
import { textIndexFor } from "./text-index.js";
import { type FtsField, ftsFieldKey, ftsFieldSql } from "./fts-field.js";
import { fieldPositionsFor, ftsVersionOf } from "./sqlite-text-field.js";
import { type MatchAnswer, matchJobKey, type PhraseRowsKnown, readPoolFor } from "./sqlite-read-pool.js";
import {
  listPrefixTerms,
  longPrefixOf,
  PHRASE_HELPERS,
  phraseKey,
  phraseRows,
  phrasesOf,
  prefixTermsExpression,
  scoreSql,
} from "./phrase-rows.js";
import { textRankingOf } from "./rank-extension.js";
import { rankWindows, WINDOW_STEPS, windowOf, type WindowedRows } from "./text-window.js";
import {
  ANSWERED_GAP,
  ANSWERED_HELPERS,
  ANSWERED_RANGES,
  ANSWERED_SEEK_ROWS,
  type AnsweredRead,
  answeredRead,
  bestRows,
} from "./sqlite-text-answered.js";
import { type TextCandidates, textCandidatesOf } from "./sqlite-text-candidates.js";
import { deepTop } from "./sqlite-text-deep.js";

const FEW_MATCHES = 2048;
/**
 * A page's candidates from which the queue's filters are tested in memory (the caller's answers read once, ~1 ms per
 * 1,000 of them) rather than in SQL (~10 µs a candidate): the first page's few candidates stay in SQL.
 */
const QUEUE_IN_MEMORY = 500;
/**
 * Answered records from which their rows are read by two threads at once, half each (answeredRows): 10,000 records every
 * 50th of 1M are ~65 ms of one thread for a common word; fewer than this cost a few ms, not worth a second job.
 */
const ANSWERED_SPLIT = 1024;
/**
 * A bounded total (countLimit) reads at most this many times `bound + 1` of the word's matching
 * records, in record order: filters passing fewer than 1 in READ_PER_BOUND of them (the annotation
 * page's metadata filters: ~10%) would otherwise read ~bound / pass rate records (at 1M, a word in
 * 79% of the records: 125K FTS rows, 35 ms of CPU for a total of "10,000+"). The total is then the
 * records passing among those read, as a lower bound (docs/performance.md, issue 31).
 */
const READ_PER_BOUND = 2;
/** The records of the word a bounded total reads at most: READ_PER_BOUND x (limit + 1), and at least past the few matches. */
const walkCap = (limit: number, fewMatches: number) => Math.max(READ_PER_BOUND * (limit + 1), fewMatches + 1);
/** Whether at least `until.passing` of the first `length` seqs are not in `until.excluded` (both in order). */
const passEnough = (seqs: Uint32Array, length: number, until?: { passing: number; excluded: Uint32Array }): boolean => {
  if (!until) return false;
  const excluded = until.excluded;
  let x = 0;
  let passed = 0;
  for (let i = 0; i < length; i++) {
    const seq = seqs[i]!;
    while (x < excluded.length && excluded[x]! < seq) x++;
    if ((x >= excluded.length || excluded[x] !== seq) && ++passed >= until.passing) return true;
  }
  return false;
};
/** FTS rows first asked for a page ending at `need` in score order (grown by the pass rate when too few pass the filters). */
const firstK = (need: number) => Math.max(64, Math.ceil(need * 3) + 32);
/** Best FTS rows kept per cached query (16 bytes each). */
const RANKED_ROWS = 1024;
/** Memory budget of the cached match lists of all datasets (bytes); least recently used first out. */
const CACHE_BYTES = 64 * 1024 * 1024;
/** Words in at least this many FTS rows are ranked ahead (rankFrequentWords): below it FTS5's bm25 of every match costs < ~2 ms at 1M records. */
const FREQUENT_ROWS = 4096;
/** Best FTS rows kept per word ranked ahead (16 bytes each): a first page of 10 reads 64 of them. */
const FREQUENT_RANKED = 256;
/** Words per job of the read threads while ranking ahead (a thread stays free for searches meanwhile). */
const FREQUENT_BATCH = 32;
/** Words ranked ahead stored or read per transaction (fts.text_ranked_ahead: ~4 KB each, a short step of the request thread). */
const STORE_BATCH = 256;
/** A cache key (`lo:hi:field:expression`) without a field and with one plain ASCII word: the words ranked ahead. */
const PLAIN_WORD_KEY = /^(\d+:\d+)::"([A-Za-z0-9]+)"$/;
/**
 * Records per window of the order of any other query (text-window.ts: several words, a prefix, one
 * field): bm25 of ~10K records' rows costs ~5-10 ms at 1M, and their read gives the 10,001 first
 * matching records the bounded total of the queue needs (countLimit's default bound + 1).
 */
const RANK_WINDOW = 10_000;
/** Prefixes of at least this many characters (none in the prefix index, FTS_PREFIXES "3 4") are expanded into their terms (expandPrefix). */
const LONG_PREFIX = 5;
/** At most this many terms per expanded prefix (FTS5 reads each term's list: beyond it the prefix as written). */
const PREFIX_TERMS_MAX = 200;
/** Prefixes whose terms are kept per index version (~1 KB each). */
const PREFIX_TERMS_KEPT = 10_000;
/** Phrases whose row counts are kept (phrase-rows.ts; ~100 bytes each): beyond it they are counted again. */
const PHRASE_ROWS_MAX = 100_000;

/**
 * What a text query yields from the FTS index alone, whoever asks: the distinct matching seqs of the
 * range (for the count) and the best FTS rows by score (a prefix of the ranking, `k` rows, `complete`
 * when that is all of them). The filters that depend on the user or on record state (statuses,
 * responses) are applied to these at query time, so a Submit does not invalidate them.
 */
interface Matches {
  seqs: Uint32Array | null;
  /** The first distinct matching seqs in order (a bounded total reads no further than it needs), `complete` when all. */
  prefix: SeqPrefix | null;
  ranked: Ranked | null;
  /**
   * The query's matching records without filters (a dataset alone in its range): exact, or more than `n` (a bounded count
   * stopped there); counted once per index version (textCount, or a deep read's halves), not at each page the SDK iterates.
   */
  total: { n: number; exact: boolean } | null;
  bytes: number;
}

/**
 * The first `k` FTS rows of a query's order (rowid, score), `complete` when that is all of them. A windowed order
 * (text-window.ts) keeps whole windows (k: all of their rows) and leaves out the rows of records before `from` (the
 * first record the search that read them could show: a team's completed head); `next`: where the window after those
 * read starts, and the windows' width (a page that needs more reads on from there; null: read from the first record).
 */
interface Ranked {
  k: number;
  fr: Float64Array;
  bm: Float64Array;
  complete: boolean;
  from: number;
  next: { seq: number; width: number } | null;
}

/** A windowed read's rows as kept: appended to `before`'s (the windows it went on after), or alone from `from`. */
const windowedRanked = (
  w: Pick<WindowedRows, "fr" | "bm" | "complete" | "next" | "width">,
  from: number,
  before: Ranked | null,
): Ranked => {
  const join = (a: Float64Array | undefined, b: Float64Array) => {
    if (!a) return b;
    const out = new Float64Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  };
  const fr = join(before?.fr, w.fr);
  return {
    k: fr.length,
    fr,
    bm: join(before?.bm, w.bm),
    complete: w.complete,
    from: before ? before.from : from,
    next: w.complete || w.next === null ? null : { seq: w.next, width: w.width },
  };
};

/** Whether kept rows serve a search whose first passing record is `from`: none of its records left out. */
const serves = (r: Ranked | null, from: number): r is Ranked => r !== null && r.from <= from;
/**
 * The best FTS rows to read when those kept (r) do not reach k: at least RANKED_ROWS and, by score alone (no windows),
 * 4 times k past RANKED_ROWS and 4 times those kept. A page at an offset asks for k = 3 x (offset + limit) + 32, so the
 * SDK iterating a query's pages of 256 (`dataset.records(query=...)`) read every match's score again at each page
 * (FTS5's bm25 best 1,024 of a word in 168K records at 1M: 157 ms); growing 4 times reads them a logarithmic number of
 * times, and the pages after a deep one (offset 2,560: 33,920 rows) read none for 33 pages.
 */
const rankedLimit = (r: Ranked | null, from: number, k: number, window: number): number =>
  Math.max(k, RANKED_ROWS, window === 0 && k > RANKED_ROWS ? 4 * k : 0, window === 0 && serves(r, from) ? 4 * r.k : 0);

/** The kept windows a read for a search from `from` goes on after (they end past `from`), or null: a read from the first record. */
const goesOnAfter = (r: Ranked | null, from: number): (Ranked & { next: { seq: number; width: number } }) | null =>
  serves(r, from) && !r.complete && r.next !== null && from < r.next.seq ? (r as Ranked & { next: { seq: number; width: number } }) : null;

/** The first distinct matching seqs of a query, read in rowid order as far as a bounded total needed them. */
interface SeqPrefix {
  seqs: Uint32Array;
  length: number;
  /** The FTS rowid to read on from (the record after the last one read). */
  next: number;
  complete: boolean;
}

/** The row counts of the plain words among the index's frequent terms (phrase-rows.ts), by phraseKey. */
const frequentRows = (terms: string[], docs: number[]): Record<string, number> =>
  Object.fromEntries(terms.flatMap((t, i) => (/^[a-z0-9]+$/.test(t) ? [[`"${t}"`, docs[i]!]] : [])));

/** The terms of a sorted list that start with `prefix`. */
const termsOf = (sorted: string[], prefix: string): string[] => {
  const out: string[] = [];
  for (let i = firstAtLeast(sorted, prefix); i < sorted.length && sorted[i]!.startsWith(prefix); i++) out.push(sorted[i]!);
  return out;
};

/** A search from the records one of its filters passes (SqliteText.answeredSearch): the query, its FTS expression and cache key, its seq range. */
interface AnsweredSearch {
  query: SearchQuery;
  field: FtsField;
  expression: string;
  key: string;
  lo: number;
  hi: number;
  start: TextCandidates;
  /** Brings `record_metadata` up to date before metadata filters run in SQL. */
  sqlFilters: () => Promise<void>;
}

/** The count limit of a text query: its bound (countLimit), the filter bound for filters other than the queue's (docs/api.md, "Totals"). */
const textCountLimit = (query: SearchQuery): number | null => {
  const limit = countLimit(query);
  return limit !== null && !query.filters.every(isQueueFilter) ? filterCountLimit(query, limit) : limit;
};

/** A total: exact, or (`lowerBound`) more records than `n` match. */
interface Counted {
  n: number;
  lowerBound: boolean;
}

/** Text search of the SQLite adapter (no vector query): FTS5 `records_fts`. */
export class SqliteText extends SqliteQueries {
  /**
   * The annotator repeats the same text query (every Submit fetches the next page), so the
   * user-independent part is kept, per (rowid range, field, FTS expression), while the FTS index is
   * unchanged: its version is the index's own structure record (id 10 of `records_fts_data`, which
   * FTS5 rewrites with a new write counter or tombstone counts whenever rows are added, deleted or
   * merged) and its averages record (id 1: row and token totals, which bm25 reads). Whatever writes
   * the index (ingestion, the deferred indexer, triggers on update/delete) changes them, so the cache
   * follows what is indexed, and any change drops all of it (bm25 depends on the whole table).
   */
  private readonly cache = new Map<string, Matches>();
  private cacheVersion: Buffer | null = null;
  private cacheBytes = 0;
  private readonly inFlight = new Map<string, Promise<MatchAnswer>>();
  /** Answers of the read threads kept (tests, diagnostics). */
  adopted = 0;
  /** Distinct matching seqs adopted from the read threads' prefixes (tests: what a bounded total read). */
  prefixSeqs = 0;
  /**
   * The best FTS rows of every frequent word (in at least FREQUENT_ROWS rows) of each large dataset's
   * range, ranked ahead on the read threads once the index settles (rankFrequentWords), keyed
   * `lo:hi:"word"`; valid only at the index version they were read at, as the cache.
   */
  private frequent: { version: Buffer; byKey: Map<string, { fr: Float64Array; bm: Float64Array }> } | null = null;
  private ranking: Promise<void> | null = null;
  /** When the last ranking ahead ended and how long it took (ms): the next waits 3 times as long. */
  private lastRanking = { end: 0, took: 0 };
  private rankingTimer: NodeJS.Timeout | null = null;
  /** Totals counted in SQL with the FTS query (textCount; tests: few matches known are counted without it). */
  sqlCounts = 0;
  /** Searches answered from the answered records (sqlite-text-answered.ts; tests, diagnostics), their pages from a word's rows ranked ahead. */
  answeredSearches = 0;
  answeredAhead = 0;
  /** Reads of the answered records' rows the text match threads answered, and of those split between two (tests, diagnostics). */
  answeredOffThread = 0;
  answeredSplits = 0;
  /** Reads of the answered records' rows counted and ranked in C (tessera_answered; tests, diagnostics), and of those the windows' widths read. */
  answeredInC = 0;
  answeredWidths = 0;
  /** Pages whose candidates were tested against the queue's filters in memory, not in SQL (tests, diagnostics). */
  queueTested = 0;
  /** FTS rows scored in a windowed order's windows, by the read threads and here (tests: none twice in a search). */
  windowRows = 0;
  /** Reads of a query's best FTS rows, here or on a read thread (tests, diagnostics). */
  rankedReads = 0;
  /** The queue's exclusions built (queueExclusions; tests: once per search). */
  exclusionsBuilt = 0;
  /** Searches whose first page came from the words ranked ahead (tests, diagnostics). */
  rankedAhead = 0;
  /** Rankings ahead read from the index's file instead of ranked (tests, diagnostics). */
  storedRankingsRead = 0;
  /** Bounded totals walked, and FTS reads they made on the request thread (tests: the read threads read the first matches). */
  walks = 0;
  walkReads = 0;
  /**
   * The row counts of the phrases of queries scored with tessera_bm25 (phrase-rows.ts, rank-extension.ts), by
   * phraseKey, at one index version (the cache's version blocks): counted once per version (by a text match
   * thread's job, or here), the frequent words' with the ranking ahead.
   */
  private phraseRows: { version: Buffer | null; rows: Map<string, number> } = { version: null, rows: new Map() };
  /** Phrases counted for tessera_bm25, on the threads and here (tests, diagnostics). */
  phraseCounts = 0;
  /** The terms of long prefixes (expandPrefix) at one index version: the expression of each prefix's terms, null to keep the prefix. */
  private prefixTerms: { version: Buffer | null; byPrefix: Map<string, string | null> } = { version: null, byPrefix: new Map() };
  /** The frequent words (in at least FREQUENT_ROWS rows: the ranking ahead's) at one index version, sorted: listPrefixTerms' known terms. */
  private frequentTerms: { version: Buffer; terms: string[] } | null = null;
  /** Terms of long prefixes given as known to their listing (tests, diagnostics). */
  prefixTermsKnown = 0;
  /** Long prefixes expanded into their terms (tests, diagnostics). */
  prefixesExpanded = 0;
  /** Searches of an expanded prefix answered again with the prefix as written: the index moved meanwhile (tests, diagnostics). */
  prefixesMoved = 0;
  /** Searches in a field by its position answered again by its name: the index moved meanwhile (tests, diagnostics). */
  fieldsMoved = 0;
  /** A plain word's rankings past RANKED_ROWS read in C on the read threads (sqlite-text-deep.ts; tests, diagnostics). */
  deepReads = 0;

  /**
   * `fewMatches`: up to it the queue's text count probes each match (textCount); tests set -1 to exercise the other path.
   * `cacheBytes`: the cache's budget. `offThread: false`: no read threads (tests compare both paths).
   * `frequentRows`: words in at least this many FTS rows are ranked ahead (FREQUENT_ROWS; 0: none), their best `frequentRanked` rows (FREQUENT_RANKED).
   * `rankWindow`: records per window of the order of queries other than one plain word (RANK_WINDOW; text-window.ts).
   * `answered: false`: no search from the answered records (sqlite-text-answered.ts; tests compare both paths); `answeredGap`: its ranges' gap
   * (ANSWERED_GAP; set: whatever the query's rows); `answeredMembers: false`: its candidates tested by an IN list, not tessera_seq_in's bitmap;
   * `answeredSplit`: candidates from which their read is split between two threads (ANSWERED_SPLIT); `answeredTop: false`: the
   * rows returned and ordered here, not counted and ranked in C by tessera_answered.
   * `prefixTerms: false`: long prefixes are not expanded into their terms (expandPrefix; tests compare both paths).
   * `queueInMemory`: a page's candidates from which the queue's filters are tested in memory (QUEUE_IN_MEMORY; false: always in SQL).
   * `windowsOnce: false`: a windowed page reads its windows from the dataset's first record, every row scored, and again from
   * there each time it grows (the reference of the tests), not from its first passing record and after the windows it has.
   * `textSorts: false`: a sorted page scores and sorts every match in SQL, not walked in the sort's order (sqlite-text-sorted.ts);
   * `sortWalkMax`: the records an `updated_at` walk reads at most (its WALK_MAX).
   * `fieldPositions: false`: a field is always tested by its name, never by its position (sqlite-text-field.ts; tests compare).
   * `deepTop: false`: a plain word's ranking past RANKED_ROWS by FTS5's `ORDER BY bm25` (the reference of the tests), not
   * by the read threads in C (sqlite-text-deep.ts).
   */
  constructor(
    db: Kysely<DB>,
    private readonly options: {
      fewMatches?: number;
      prefixTerms?: boolean;
      cacheBytes?: number;
      offThread?: boolean;
      frequentRows?: number;
      frequentRanked?: number;
      rankWindow?: number;
      answered?: boolean;
      answeredGap?: number;
      answeredMembers?: boolean;
      answeredSplit?: number;
      answeredTop?: boolean;
      queueInMemory?: number | false;
      windowsOnce?: boolean;
      textSorts?: boolean;
      sortWalkMax?: number;
      fieldPositions?: boolean;
      deepTop?: boolean;
    } = {},
  ) {
    super(db);
    this.sorted = new SqliteTextSorted(db, options.sortWalkMax);
  }

  /** Sorted text pages walked in the sort's order (sqlite-text-sorted.ts). */
  private readonly sorted: SqliteTextSorted;

  /** Sorted pages given by walking the sort's order, and walks given up to the plain path (tests, diagnostics). */
  get sortedWalks(): { pages: number; givenUp: number } {
    return { pages: this.sorted.pages, givenUp: this.sorted.walksGivenUp };
  }

  /** Records per window of a query's order (text-window.ts), 0 for one plain word over all fields (FTS5's full ranking, or the rows ranked ahead). */
  private windowOf(key: string): number {
    return PLAIN_WORD_KEY.test(key) ? 0 : (this.options.rankWindow ?? RANK_WINDOW);
  }

  /**
   * A long prefix (`"abcde"*`, longer than the prefix index's lengths) as its terms, `("t1" OR "t2" ...)`, when it has
   * 1-PREFIX_TERMS_MAX of them and the windows are scored with tessera_bm25 (which scores the group as the prefix): FTS5 then
   * reads only the window's part of each term's list instead of merging all of them over the whole table in each statement
   * (at 1M records: 23-52 -> 17-20 ms of CPU for the first 20,002 records, plus 1.5-21 ms to list the terms once per index
   * version). Listed on a read thread (or here, in one read transaction with the version), kept per prefix while the index's
   * version is the same; null: the prefix as written. `version`: the index's version the terms are those of (textSearch
   * answers with the prefix as written if the index moved before its reads ended).
   */
  private async expandPrefix(expression: string): Promise<{ expression: string; version: Buffer } | null> {
    const prefix = longPrefixOf(expression, LONG_PREFIX);
    const raw = rawSqliteOf(this.db);
    if (prefix === null || !raw || this.options.prefixTerms === false || textRankingOf(this.db).scoring !== "tessera_bm25") return null;
    const current = await this.db.connection().execute(async () => SqliteText.versionOf(raw));
    if (!this.prefixTerms.version?.equals(current) || this.prefixTerms.byPrefix.size > PREFIX_TERMS_KEPT)
      this.prefixTerms = { version: current, byPrefix: new Map() };
    const kept = this.prefixTerms.byPrefix.get(prefix);
    if (kept !== undefined) return kept === null ? null : { expression: kept, version: current };
    const pool = this.options.offThread !== false ? readPoolFor(this.db) : null;
    // The frequent words of the prefix, known terms at this version: listed without reading their rows (phrase-rows.ts).
    const known = this.frequentTerms?.version.equals(current)
      ? { version: current, terms: termsOf(this.frequentTerms.terms, prefix) }
      : null;
    this.prefixTermsKnown += known?.terms.length ?? 0;
    const listed = pool
      ? await pool.prefixTerms(prefix, PREFIX_TERMS_MAX, known).catch(() => null)
      : await this.db.connection().execute(async () =>
          raw.transaction(() => {
            const version = SqliteText.versionOf(raw);
            const terms = known?.version.equals(version) ? known.terms : [];
            return { version, terms: listPrefixTerms((sql) => raw.prepare(sql), prefix, PREFIX_TERMS_MAX, PHRASE_HELPERS, terms) };
          })(),
        );
    // Listed at another version (the index moved meanwhile): the prefix as written.
    if (!listed || !listed.version.equals(current) || !this.prefixTerms.version?.equals(current)) return null;
    const expanded = listed.terms.length <= PREFIX_TERMS_MAX ? prefixTermsExpression(listed.terms) : null;
    this.prefixTerms.byPrefix.set(prefix, expanded);
    if (!expanded) return null;
    this.prefixesExpanded++;
    return { expression: expanded, version: current };
  }

  /**
   * Whether a query's windows are scored with tessera_bm25 (rank-extension.ts): a windowed query (several words,
   * a prefix, one field) on a connection that loaded the extension. One plain word over all fields keeps bm25():
   * its full ranking (or the rows ranked ahead, which are bm25's) costs no count beyond its own matches.
   */
  private ranksWithCounts(key: string): boolean {
    return this.windowOf(key) > 0 && textRankingOf(this.db).scoring === "tessera_bm25";
  }

  /** What a read thread's job is told of the phrases' row counts (sqlite-read-pool.ts), or undefined: the job scores with bm25(). */
  private rankingJob(key: string, expression: string): PhraseRowsKnown | undefined {
    if (!this.ranksWithCounts(key)) return undefined;
    const rows: Record<string, number> = {};
    for (const phrase of phrasesOf(expression)) {
      const n = this.phraseRows.rows.get(phraseKey(phrase));
      if (n !== undefined) rows[phraseKey(phrase)] = n;
    }
    return { version: this.phraseRows.version, rows };
  }

  /** Keeps row counts read at `version` (the index's current version: the caller checked it); counts of another version are dropped. */
  private keepPhraseRows(version: Buffer, rows: Record<string, number> | null): void {
    if (!rows) return;
    const kept = this.phraseRowsAt(version);
    for (const [key, n] of Object.entries(rows)) kept.set(key, n);
  }

  /** Keeps the frequent words of `counts` (frequentRows' plain words, read at `version`, the index's current one) as the known terms of prefixes. */
  private keepFrequentTerms(version: Buffer, counts: Record<string, number>): void {
    const minRows = this.options.frequentRows ?? FREQUENT_ROWS;
    const terms = Object.entries(counts).flatMap(([key, n]) => (n > 0 && n >= minRows ? [key.slice(1, -1)] : []));
    this.frequentTerms = { version, terms: terms.sort() };
  }

  /** The counts kept at `version`: emptied when the index moved to it or when they outgrew PHRASE_ROWS_MAX. */
  private phraseRowsAt(version: Buffer): Map<string, number> {
    if (!this.phraseRows.version?.equals(version) || this.phraseRows.rows.size > PHRASE_ROWS_MAX)
      this.phraseRows = { version, rows: new Map() };
    return this.phraseRows.rows;
  }

  /**
   * The score of a query's rows as SQL and its arguments (bound before the query's own): bm25(), or
   * tessera_bm25 with its phrases' row counts, the missing ones counted here, synchronously on the connection.
   */
  private scoreHere(raw: SQLite.Database | null, key: string, expression: string): { sql: string; args: number[] } {
    if (!raw || !this.ranksWithCounts(key)) return { sql: scoreSql("bm25", 0), args: [] };
    // One phrase: no counts (its idf is a constant factor), as phraseScore on the read threads.
    const phrases = phrasesOf(expression);
    if (phrases.length < 2) return { sql: scoreSql("tessera_bm25", 0), args: [] };
    const args = PHRASE_HELPERS.rankArguments(this.phraseRowsHere(raw, phrases));
    return { sql: scoreSql("tessera_bm25", args.length), args };
  }

  /** The phrases' row counts at the index's version: kept, the missing ones counted here, synchronously on the connection. */
  private phraseRowsHere(raw: SQLite.Database, phrases: string[]): number[] {
    const kept = this.phraseRowsAt(SqliteText.versionOf(raw));
    const counted = phraseRows(
      (sql) => raw.prepare(sql),
      phrases,
      (key) => kept.get(key),
      PHRASE_HELPERS,
    );
    for (const [key, n] of Object.entries(counted.rows)) kept.set(key, n);
    this.phraseCounts += counted.counted;
    return phrases.map((phrase) => counted.rows[phraseKey(phrase)]!);
  }

  /** Memory held by the cached match lists (bytes), for tests and measurements. */
  get cachedBytes(): number {
    return this.cacheBytes;
  }

  /** The cache entry of a query, synchronously on the connection: first the index version (a moved version empties the cache). */
  private matches(raw: SQLite.Database, key: string): Matches {
    const blocks = raw.prepare("SELECT block FROM records_fts_data WHERE id IN (1, 10) ORDER BY id").pluck().all() as Buffer[];
    const version = Buffer.concat(blocks);
    if (!this.cacheVersion || !version.equals(this.cacheVersion)) {
      this.cache.clear();
      this.cacheBytes = 0;
      this.cacheVersion = version;
    }
    if (this.frequent && !this.frequent.version.equals(version)) this.frequent = null; // ranked at another version
    let entry = this.cache.get(key);
    if (entry) this.cache.delete(key);
    else entry = { seqs: null, prefix: null, ranked: null, total: null, bytes: 0 };
    this.cache.set(key, entry); // most recent last
    if (!entry.ranked && this.frequent) {
      const plain = PLAIN_WORD_KEY.exec(key);
      const ahead = plain ? this.frequent.byKey.get(`${plain[1]}:"${plain[2]!.toLowerCase()}"`) : undefined;
      if (ahead) {
        const k = this.options.frequentRanked ?? FREQUENT_RANKED;
        entry.ranked = { k, fr: ahead.fr, bm: ahead.bm, complete: ahead.fr.length < k, from: 0, next: null };
        this.rankedAhead++;
        this.account(entry);
      }
    }
    return entry;
  }

  /** Re-measures an entry after it grew and evicts the least recently used ones beyond the budget. */
  private account(entry: Matches): void {
    const bytes =
      (entry.seqs?.byteLength ?? 0) +
      (entry.prefix?.seqs.byteLength ?? 0) +
      (entry.ranked ? entry.ranked.fr.byteLength + entry.ranked.bm.byteLength : 0);
    this.cacheBytes += bytes - entry.bytes;
    entry.bytes = bytes;
    const budget = this.options.cacheBytes ?? CACHE_BYTES;
    for (const [key, old] of this.cache) {
      if (this.cacheBytes <= budget) break;
      if (old === entry) continue;
      this.cache.delete(key);
      this.cacheBytes -= old.bytes;
    }
    if (this.cacheBytes > budget) {
      // the entry alone is over the budget: not kept
      for (const [key, e] of this.cache) if (e === entry) this.cache.delete(key);
      this.cacheBytes -= entry.bytes;
      entry.bytes = 0;
    }
  }

  /** Frequent words ranked ahead at the index's current version (tests, diagnostics). */
  get frequentWords(): number {
    return this.frequent?.byKey.size ?? 0;
  }

  /**
   * Ranks the frequent words ahead (issue 31): FTS5's bm25 scores every match of a word whatever the
   * LIMIT (a word in 72% of 1M records: ~380 ms of CPU), so the first search of a common word cannot
   * be fast; the best FREQUENT_RANKED rows of every word in at least FREQUENT_ROWS FTS rows are
   * computed here instead, for each dataset of at least that many records, on the read threads
   * (a batch of words per job, one job at a time: the other thread stays free for searches), with the
   * same SQL as a search (so the same rows and scores), all at one index version: if the index moves
   * meanwhile the work is dropped and the next settled index starts it over. A search of a single
   * plain word (no field) then starts from these rows (matches). Called when the text index has
   * settled (search/warm-up.ts); a run waits at least 3 times the last run's duration after it, so
   * ranking takes at most a quarter of a core while records keep changing.
   */
  rankFrequentWords(): Promise<void> {
    const pool = readPoolFor(this.db);
    const minRows = this.options.frequentRows ?? FREQUENT_ROWS;
    if (!pool || !rawSqliteOf(this.db) || minRows <= 0 || this.options.offThread === false) return Promise.resolve();
    if (this.ranking) return this.ranking;
    const wait = this.lastRanking.end + 3 * this.lastRanking.took - Date.now();
    if (wait > 0) {
      this.rankingTimer ??= setTimeout(() => {
        this.rankingTimer = null;
        void this.rankFrequentWords().catch(() => undefined);
      }, wait);
      this.rankingTimer.unref();
      return Promise.resolve();
    }
    const started = Date.now();
    this.ranking = this.rankAhead(pool, minRows).finally(() => {
      this.ranking = null;
      this.lastRanking = { end: Date.now(), took: Date.now() - started };
    });
    return this.ranking;
  }

  private async rankAhead(pool: NonNullable<ReturnType<typeof readPoolFor>>, minRows: number): Promise<void> {
    const raw = rawSqliteOf(this.db)!;
    const current = await this.db
      .connection()
      .execute(async () =>
        Buffer.concat(raw.prepare("SELECT block FROM records_fts_data WHERE id IN (1, 10) ORDER BY id").pluck().all() as Buffer[]),
      );
    if (this.frequent?.version.equals(current)) return; // already ranked at this version
    if (await this.loadRanking(raw, current)) {
      // Stored at this version (before a restart); by an older version without its words' row counts: counted now.
      if (this.phraseRows.rows.size === 0) await this.storeFrequentRows(pool, minRows, raw);
      return;
    }
    const spans = (
      await this.all<{ lo: number | null; hi: number | null }>(
        "SELECT (SELECT min(seq) FROM records WHERE dataset_id = d.id) AS lo, (SELECT max(seq) FROM records WHERE dataset_id = d.id) AS hi FROM datasets d",
        [],
      )
    ).filter((s): s is { lo: number; hi: number } => s.lo !== null && s.hi !== null && s.hi - s.lo + 1 >= minRows && s.hi < 2 ** 32);
    if (spans.length === 0) return;
    const { version, terms, docs } = await pool.terms(minRows);
    const words = terms.filter((t) => /^[a-z0-9]+$/.test(t));
    // Their row counts come with them: tessera_bm25's arguments for queries of several words (phrase-rows.ts).
    const counts = frequentRows(terms, docs);
    await this.db.connection().execute(async () => {
      if (!SqliteText.versionOf(raw).equals(version)) return;
      this.keepPhraseRows(version, counts);
      this.keepFrequentTerms(version, counts);
    });
    const byKey = new Map<string, { fr: Float64Array; bm: Float64Array }>();
    for (const span of spans)
      for (let i = 0; i < words.length; i += FREQUENT_BATCH) {
        const batch = words.slice(i, i + FREQUENT_BATCH);
        const answer = await pool.rank({
          expressions: batch.map((w) => `"${w}"`),
          lo: span.lo * 1024,
          hi: span.hi * 1024 + 1023,
          k: this.options.frequentRanked ?? FREQUENT_RANKED,
        });
        if (!answer.version.equals(version)) return; // the index moved: the next settled index starts over
        batch.forEach((w, j) => byKey.set(`${span.lo}:${span.hi}:"${w}"`, answer.ranked[j]!));
      }
    this.frequent = { version, byKey };
    await this.storeRanking(raw, version, byKey, counts);
  }

  /** The frequent words' row counts alone (a ranking stored without them), kept and stored beside the stored ranking. */
  private async storeFrequentRows(pool: NonNullable<ReturnType<typeof readPoolFor>>, minRows: number, raw: SQLite.Database): Promise<void> {
    const { version, terms, docs } = await pool.terms(minRows);
    const counts = Object.entries(frequentRows(terms, docs));
    await this.db.connection().execute(async () => {
      if (!SqliteText.versionOf(raw).equals(version)) return;
      this.keepPhraseRows(version, Object.fromEntries(counts));
      this.keepFrequentTerms(version, Object.fromEntries(counts));
      const stored = raw.prepare("SELECT version FROM fts.text_ranked_ahead_version WHERE id = 1").pluck().get() as Buffer | undefined;
      if (!stored?.equals(version)) return;
      const insert = raw.prepare("INSERT OR REPLACE INTO fts.text_phrase_rows (phrase, rows) VALUES (?, ?)");
      raw.transaction(() => {
        for (const [phrase, n] of counts) insert.run(phrase, n);
      })();
    });
  }

  /** The index's version (the blocks the cache is versioned with), read on the connection. */
  private static versionOf(raw: SQLite.Database): Buffer {
    return ftsVersionOf(raw);
  }

  /**
   * Keeps the words ranked ahead in the index's file (fts.text_ranked_ahead, text-index.ts) with the
   * version they were ranked at, so that a restart reads them instead of ranking again (~100-200 s of a
   * thread at 1M records). In steps of STORE_BATCH words; the version row is written last, so a crash
   * midway leaves nothing that would be read. Skipped if the index moved meanwhile.
   */
  private async storeRanking(
    raw: SQLite.Database,
    version: Buffer,
    byKey: Map<string, { fr: Float64Array; bm: Float64Array }>,
    /** The frequent words' row counts (phrase-rows.ts), by phraseKey. */
    counts: Record<string, number>,
  ): Promise<void> {
    const moved = () => !SqliteText.versionOf(raw).equals(version);
    const cleared = await this.db.connection().execute(async () => {
      if (moved()) return false;
      raw.transaction(() => {
        raw.prepare("DELETE FROM fts.text_ranked_ahead_version").run();
        raw.prepare("DELETE FROM fts.text_ranked_ahead").run();
        raw.prepare("DELETE FROM fts.text_phrase_rows").run();
      })();
      return true;
    });
    if (!cleared) return;
    const entries = [...byKey];
    const blob = (a: Float64Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    const phrases = Object.entries(counts);
    for (let i = 0; i < phrases.length; i += STORE_BATCH * 16)
      await this.db.connection().execute(async () => {
        const insert = raw.prepare("INSERT INTO fts.text_phrase_rows (phrase, rows) VALUES (?, ?)");
        raw.transaction(() => {
          for (const [phrase, n] of phrases.slice(i, i + STORE_BATCH * 16)) insert.run(phrase, n);
        })();
      });
    for (let i = 0; i < entries.length; i += STORE_BATCH)
      await this.db.connection().execute(async () => {
        const insert = raw.prepare("INSERT INTO fts.text_ranked_ahead (key, fr, bm) VALUES (?, ?, ?)");
        raw.transaction(() => {
          for (const [key, { fr, bm }] of entries.slice(i, i + STORE_BATCH)) insert.run(key, blob(fr), blob(bm));
        })();
      });
    await this.db.connection().execute(async () => {
      if (!moved())
        raw
          .prepare("INSERT INTO fts.text_ranked_ahead_version (id, version, k) VALUES (1, ?, ?)")
          .run(version, this.options.frequentRanked ?? FREQUENT_RANKED);
    });
  }

  /** The words ranked ahead stored at this version (storeRanking), read in steps; false when none are or the index moved meanwhile. */
  private async loadRanking(raw: SQLite.Database, version: Buffer): Promise<boolean> {
    const stored = await this.db
      .connection()
      .execute(
        async () =>
          raw.prepare("SELECT version, k FROM fts.text_ranked_ahead_version WHERE id = 1").get() as
            { version: Buffer; k: number } | undefined,
      );
    if (!stored?.version.equals(version) || stored.k !== (this.options.frequentRanked ?? FREQUENT_RANKED)) return false;
    const floats = (b: Buffer) => new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
    const byKey = new Map<string, { fr: Float64Array; bm: Float64Array }>();
    for (let after = 0; ;) {
      const rows = await this.db
        .connection()
        .execute(
          async () =>
            raw
              .prepare("SELECT rowid, key, fr, bm FROM fts.text_ranked_ahead WHERE rowid > ? ORDER BY rowid LIMIT ?")
              .raw()
              .all(after, STORE_BATCH) as [number, string, Buffer, Buffer][],
        );
      for (const [, key, fr, bm] of rows) byKey.set(key, { fr: floats(fr), bm: floats(bm) });
      if (rows.length < STORE_BATCH) break;
      after = rows[rows.length - 1]![0];
    }
    const counts = await this.db
      .connection()
      .execute(async () =>
        Object.fromEntries(raw.prepare("SELECT phrase, rows FROM fts.text_phrase_rows").raw().all() as [string, number][]),
      );
    const current = await this.db.connection().execute(async () => SqliteText.versionOf(raw));
    if (!current.equals(version)) return false;
    this.keepPhraseRows(version, counts);
    this.keepFrequentTerms(version, counts);
    this.frequent = { version, byKey };
    this.storedRankingsRead++;
    return true;
  }

  /**
   * Text search (no vector): FTS5 restricted to the dataset's rowid range (rowid = seq * 1024 + i,
   * and a dataset's records are mostly contiguous in seq), counted without scoring, ranked inside
   * FTS5 with a bounded sort (`ORDER BY bm25 LIMIT k`) when the order is the text score.
   */
  async textSearch(
    query: SearchQuery,
    text: { q: string; field: string | null },
    /**
     * The filters as a test per seq when they have metadata (SqliteMetadata.seqFilter): the bounded total
     * walks the matches with it, and the page's candidates are filtered with it instead of SQL.
     */
    seqFilter?: () => Promise<((seq: number) => boolean) | null>,
    /** Brings `record_metadata` up to date (SqliteSearch.catchUpMetadata): called before metadata filters run in SQL. */
    metadataSql?: () => Promise<void>,
    /** The in-memory order of a metadata or suggestion sort (SqliteCandidates.runOf), for a sorted page (sortedPage). */
    runOf?: (sort: SearchSort) => Promise<Uint32Array | null>,
  ): Promise<SearchResult> {
    await textIndexFor(this.db)?.catchUp(); // records acknowledged but not yet in records_fts (search/text-index.ts)
    const written = ftsExpression(text.q);
    if (written === null) return { hits: [], total: 0 };
    const expanded = await this.expandPrefix(written);
    if (!expanded) return this.inField(query, text.field, written, seqFilter, metadataSql, runOf);
    const result = await this.inField(query, text.field, expanded.expression, seqFilter, metadataSql, runOf);
    // The terms are those of the index at expanded.version: if it moved before the reads ended, a term indexed since (a record
    // imported meanwhile) may be missing from the expression, so the prefix as written answers (one read of the version: ~5 us).
    const raw = rawSqliteOf(this.db)!;
    if ((await this.db.connection().execute(async () => SqliteText.versionOf(raw))).equals(expanded.version)) return result;
    this.prefixesMoved++;
    return this.inField(query, text.field, written, seqFilter, metadataSql, runOf);
  }

  /**
   * A field tested by its position in every record of the range where that is exact (sqlite-text-field.ts: a word in the
   * summaries of 1M records, 95 -> 59 ms p95, 63 -> 27 ms of CPU a call at load ~3.5), else by its name.
   */
  private fieldTest(field: string, lo: number, hi: number, at: { version: Buffer; used: boolean }): FtsField {
    const position = fieldPositionsFor(this.db).positionOf(lo, hi, field, at.version);
    if (position === null) return field;
    at.used = true;
    return position;
  }

  /**
   * searchExpression, a field by its position at the index's version read first; if the index moved before the reads
   * ended (a write may have moved a field in a record), by its name (two reads of the version: ~10 us).
   */
  private async inField(...args: Parameters<SqliteText["searchExpression"]>): Promise<SearchResult> {
    const raw = rawSqliteOf(this.db);
    if (args[1] === null || !raw || this.options.fieldPositions === false) return this.searchExpression(...args);
    const at = { version: await this.db.connection().execute(async () => SqliteText.versionOf(raw)), used: false };
    const [query, field, expression, seqFilter, metadataSql, runOf] = args;
    const result = await this.searchExpression(query, field, expression, seqFilter, metadataSql, runOf, at);
    if (!at.used || (await this.db.connection().execute(async () => SqliteText.versionOf(raw))).equals(at.version)) return result;
    this.fieldsMoved++;
    return this.searchExpression(...args);
  }

  /** textSearch of an FTS expression (the words as written, or a long prefix as its terms). */
  private async searchExpression(
    query: SearchQuery,
    field: string | null,
    expression: string,
    seqFilter?: () => Promise<((seq: number) => boolean) | null>,
    metadataSql?: () => Promise<void>,
    runOf?: (sort: SearchSort) => Promise<Uint32Array | null>,
    /** A field by its position where known at this version (inField); absent, by its name. */
    fieldAt?: { version: Buffer; used: boolean },
  ): Promise<SearchResult> {
    const span = (
      await this.all<{ lo: number | null; hi: number | null; shared: number }>(
        `SELECT lo, hi, EXISTS (SELECT 1 FROM datasets d WHERE d.id <> ? AND EXISTS (SELECT 1 FROM records x WHERE x.dataset_id = d.id AND x.seq BETWEEN lo AND hi)) AS shared
       FROM (SELECT (SELECT min(seq) FROM records WHERE dataset_id = ?) AS lo, (SELECT max(seq) FROM records WHERE dataset_id = ?) AS hi)`,
        [query.datasetId, query.datasetId, query.datasetId],
      )
    )[0];
    if (!span || span.lo === null || span.hi === null) return { hits: [], total: 0 };
    const text = { field: field !== null && fieldAt ? this.fieldTest(field, span.lo, span.hi, fieldAt) : field };
    // The FTS rows of the dataset's range (from the record `first` on): every query below starts from these.
    const fts = (b: Builder, first = span.lo!) =>
      `records_fts WHERE records_fts MATCH ${b.p(expression)} AND rowid BETWEEN CAST(${b.p(first * 1024)} AS INTEGER) AND CAST(${b.p(span.hi! * 1024 + 1023)} AS INTEGER)${text.field !== null ? ` AND ${ftsFieldSql(text.field).replace("?", b.p(text.field))}` : ""}`;

    const key = `${span.lo}:${span.hi}:${ftsFieldKey(text.field)}:${expression}`;
    const need = query.offset + query.limit;
    // Before metadata filters run in SQL: `record_metadata` caught up (once per call).
    let caughtUp: Promise<void> | undefined;
    const sqlFilters = (): Promise<void> => (caughtUp ??= metadataSql ? metadataSql() : Promise.resolve());
    // Answered records only (Submitted, Discarded, Draft): from the few answered records, not from the text's matches.
    const rawDb = rawSqliteOf(this.db);
    const start =
      query.sort.length === 0 && span.shared === 0 && this.options.answered !== false && rawDb
        ? await this.db.connection().execute(async () => textCandidatesOf(rawDb, query))
        : null;
    const answered = start
      ? await this.answeredSearch({ query, field: text.field, expression, key, lo: span.lo, hi: span.hi, start, sqlFilters })
      : null;
    if (answered) return answered;
    const queueShape = span.shared === 0 && this.queueShaped(query);
    // Filters other than the queue's (metadata) are counted up to the filter bound, as textCount counts them (docs/api.md, "Totals").
    const limit = textCountLimit(query);
    // The filters as a test per seq (metadata from the in-memory columns, statuses, the caller's answers), or null: SQL.
    const passes = !queueShape && seqFilter && query.filters.some((f) => f.scope.entity === "metadata") ? await seqFilter() : null;
    // The queue's exclusions (record statuses, the caller's answers), built once per search when first needed (on the connection).
    const raw = rawSqliteOf(this.db);
    let exclusions: QueueExclusions | undefined;
    const exclusionsOf = (): QueueExclusions => {
      if (!exclusions) {
        const split = splitPending(query.filters);
        exclusions = queueExclusions(raw!, query.datasetId, query.userId, split ? split.others : query.filters, split !== null);
        this.exclusionsBuilt++;
      }
      return exclusions;
    };
    /**
     * A windowed page starts at its first passing record (its filters tested in memory): the windows before the one
     * holding it hold none of the page, and their rows need no score. A team that completed the dataset's first records
     * left a phrase's first windows without a record of anyone's queue: a page scored them, and again each time it grew by
     * the pass rate (1M records, the first 54K completed: 159 ms of CPU per new phrase, 198 per new prefix, at 1 client;
     * from the first passing record and each window once: 34 / 31 ms, the team at work row's p95 66 / 63 ms). Null: none passes.
     */
    const first =
      this.windowOf(key) > 0 &&
      query.sort.length === 0 &&
      raw &&
      this.options.windowsOnce !== false &&
      (passes || (queueShape && query.userId !== null))
        ? await this.db.connection().execute(async () => {
            const test =
              passes ??
              (
                (excluded) => (seq: number) =>
                  !excluded(seq)
              )(exclusionsOf().excluded);
            for (let seq = span.lo!; seq <= span.hi!; seq++) if (test(seq)) return seq;
            return null;
          })
        : 0;
    // A bounded total walks the first matches (queueTextCount): read on a read thread with the page's rows.
    const fewMatches = this.options.fewMatches ?? FEW_MATCHES;
    const cap = limit === null ? 0 : walkCap(limit, fewMatches);
    // A windowed query reads its first matches with its window (text-window.ts): as far as the walk may go (the queue's exclusions).
    const prefix =
      limit === null || span.shared !== 0
        ? 0
        : passes || (queueShape && this.windowOf(key) > 0)
          ? cap
          : queueShape
            ? Math.min(cap, Math.max(limit + 1, fewMatches + 1))
            : 0;
    // The queue's walk over a windowed read: the thread reads on only until `limit + 1` records pass the exclusions
    // (few: listed), not to the cap whatever they pass (issue 31: 10,001 more unscored records at 1M, ~5 ms of CPU).
    const until =
      prefix === cap && cap > 0 && !passes && queueShape && limit !== null && this.windowOf(key) > 0
        ? await this.queueUntil(query, limit, cap - limit - 1, exclusionsOf)
        : undefined;
    if (this.options.offThread !== false)
      await this.prefetch(
        key,
        expression,
        span.lo,
        span.hi,
        text.field,
        queueShape && limit === null,
        // A plain word's deep ranking is read in C by the page below (deepRanked), not by FTS5's ORDER BY here.
        query.sort.length === 0 && first !== null && (await this.deepLimit(key, firstK(need))) === 0 ? firstK(need) : 0,
        prefix,
        until,
        first ?? 0,
      );
    let counted =
      queueShape || (passes && limit !== null && span.shared === 0)
        ? await this.queueTextCount(query, span.lo, span.hi, expression, text.field, key, limit, passes, exclusionsOf)
        : null;
    // Without filters, the dataset alone in its range: the total kept for the query at the index's version, if any.
    const unfiltered = raw && query.filters.length === 0 && span.shared === 0 ? raw : null;
    if (!counted && unfiltered) counted = await this.keptTotal(unfiltered, key, limit);
    if (!counted) {
      await sqlFilters();
      const before = unfiltered ? await this.db.connection().execute(async () => SqliteText.versionOf(unfiltered)) : null;
      counted = await this.textCount(query, fts, span.shared === 0, limit);
      if (unfiltered && before)
        await this.keepTotal(unfiltered, key, before, counted.lowerBound ? { n: limit!, exact: false } : { n: counted.n, exact: true });
    }
    const { n: countedN, lowerBound } = counted;
    const bounded = lowerBound ? { totalIsLowerBound: true } : {};
    if ((countedN === 0 && !lowerBound) || (!lowerBound && query.offset >= countedN) || query.limit === 0)
      return { hits: [], total: countedN, ...bounded };
    /**
     * A lower bound (the count stopped reading the matches, see queueTextCount) is raised to the records
     * the page shows; a short page that ends the ranking gives the exact total.
     */
    const totalOf = (hits: SearchHit[]): { total: number; totalIsLowerBound?: boolean } => {
      if (!lowerBound) return { total: countedN };
      if (hits.length < query.limit && (hits.length > 0 || query.offset === 0)) return { total: query.offset + hits.length };
      return { total: Math.max(countedN, query.offset + hits.length), totalIsLowerBound: true };
    };

    if (query.sort.length > 0) {
      await sqlFilters();
      // Walked in the sort's order from the text's matches (sqlite-text-sorted.ts), else the plain path below.
      const walked =
        span.shared === 0 ? await this.sortedPage(query, { key, expression, lo: span.lo, hi: span.hi, field: text.field }, runOf) : null;
      if (walked) return { hits: walked, ...totalOf(walked) };
      // Ordered by other values: every match is a candidate; scores only for the matches.
      const b = new Builder(query.userId);
      const order: string[] = [];
      const where = [`r.dataset_id = ${b.p(query.datasetId)}`, ...query.filters.map((f) => b.filter(f))];
      order.push(...orderTerms(b, query.sort));
      const head = new Builder(query.userId);
      // The scores as the other orders give them (tessera_bm25 for a windowed query: its counts made on the connection).
      const raw = rawSqliteOf(this.db);
      const score = await this.db.connection().execute(async () => this.scoreHere(raw, key, expression));
      for (const n of score.args) head.p(n);
      // bm25() cannot run inside an aggregate: score the matches in a materialized CTE, then keep each record's best field.
      const cte = `WITH s AS MATERIALIZED (SELECT rowid AS fr, ${score.sql} AS bm FROM ${fts(head)}), t AS (SELECT fr >> 10 AS seq, min(bm) AS bm FROM s GROUP BY fr >> 10) `;
      const rows = await this.all<{ id: string; score: number }>(
        `${cte}SELECT r.id AS id, -t.bm AS score FROM t CROSS JOIN records r ON r.seq = t.seq WHERE ${where.join(" AND ")} ORDER BY ${order.join(", ")}, r.seq ASC LIMIT ${b.p(query.limit)} OFFSET ${b.p(query.offset)}`,
        [...head.params, ...b.params],
      );
      const hits = rows.map((r) => ({ recordId: r.id, score: r.score }));
      return { hits, ...totalOf(hits) };
    }

    // By score: the k best FTS rows (score, then rowid: the final order, seq ascending on ties), a
    // record's first row being its best field; the filters on those records only. The records seen
    // are an exact prefix of the ordering, so k grows only while too few of them pass.
    // No record passes the filters (the queue is done): no page, whatever the text (the total as the count gave it).
    if (first === null) return { hits: [], ...totalOf([]) };
    const from = first;
    // The best rows already kept for the query (ranked ahead, or cached): reading them costs nothing more.
    const kept = () => {
      const ranked = this.cache.get(key)?.ranked ?? null;
      return serves(ranked, from) && this.cacheVersion ? ranked.fr.length : 0;
    };
    // Filters tested in memory: every kept row is a candidate at once (a 256-row prefix in microseconds).
    let k = passes ? Math.max(firstK(need), kept()) : firstK(need);
    /**
     * The queue's filters (record status, the caller's answers) as a test per seq, made when a page's candidates are many:
     * a team that completed the dataset's first records leaves a windowed query's first windows without a passing
     * record, and the SQL test of each candidate (a probe of the caller's responses) cost ~10 µs each (1M records, the
     * first 52K completed: a phrase 316 ms of CPU per call, 203 ms on this thread, every call of the team queued behind it).
     */
    let queueTest: ((seq: number) => boolean) | null = null;
    for (;;) {
      const topRows = (limit: number) => {
        const b = new Builder(query.userId);
        return {
          sql: `SELECT rowid AS fr, bm25(records_fts) AS bm FROM ${fts(b)} ORDER BY bm, rowid LIMIT ${b.p(limit)}`,
          params: b.params,
        };
      };
      // Not one plain word: window by window (text-window.ts), from the matches in rowid order with their scores
      // (tessera_bm25 with its phrases' row counts when the extension is loaded: rank-extension.ts).
      const inRowidOrder = (_limit: number, start = span.lo!) => {
        const b = new Builder(query.userId);
        const score = this.scoreHere(raw, key, expression);
        for (const n of score.args) b.p(n);
        return { sql: `SELECT rowid AS fr, ${score.sql} AS bm FROM ${fts(b, start)} ORDER BY rowid`, params: b.params };
      };
      const window = this.windowOf(key);
      // A plain word deep in its order: its best records read in C on the read threads (null: as below).
      const deep = await this.deepRanked(key, expression, span.lo, span.hi, k);
      // More of the ranking than kept (filters passing few of the best rows): FTS5 ranks on a read thread.
      if (!deep && raw && this.options.offThread !== false)
        await this.prefetch(key, expression, span.lo, span.hi, text.field, false, k, 0, undefined, from);
      const rows = deep
        ? deep
        : raw
          ? await this.ranked(raw, key, window > 0 ? inRowidOrder : topRows, k, window, span.lo, from)
          : window > 0
            ? await this.all<{ fr: number; bm: number }>(inRowidOrder(k).sql, inRowidOrder(k).params).then((all) => {
                const w = rankWindows(
                  all.map((r): [number, number] => [r.fr, r.bm]),
                  k,
                  window,
                  span.lo!,
                );
                return Array.from(w.fr.subarray(0, k), (fr, i) => ({ fr, bm: w.bm[i]! }));
              })
            : await this.all<{ fr: number; bm: number }>(topRows(k).sql, topRows(k).params);
      const complete = rows.length < k;
      const best = new Map<number, number>();
      for (const row of rows) {
        const seq = Math.floor(row.fr / 1024);
        if (!best.has(seq)) best.set(seq, row.bm);
      }
      // The candidates passing the filters, in score order: tested in memory (passes; the queue's filters once the
      // candidates are many), else in SQL.
      let passing: number[];
      let idOf: Map<number, string>;
      // No filter, the dataset alone in its range: every candidate is one of its records, and only the page's ids are read
      // (the SDK's page at offset 2,560 looked up all 8,480 candidates in SQL, more at each deeper page).
      const everyOne = query.filters.length === 0 && span.shared === 0 ? () => true : null;
      const inMemory =
        passes ??
        everyOne ??
        (raw && queueShape && query.userId !== null && best.size > this.queueInMemory
          ? (queueTest ??= await this.queueTest(exclusionsOf))
          : null);
      if (inMemory) {
        if (!passes && !everyOne) this.queueTested++;
        passing = [...best.keys()].filter(inMemory);
        idOf = new Map(
          passing.length === 0 || query.offset >= passing.length
            ? []
            : (
                await this.all<{ seq: number; id: string }>(
                  "SELECT r.seq AS seq, r.id AS id FROM json_each(?) AS c CROSS JOIN records r ON r.seq = c.value WHERE r.dataset_id = ?",
                  [JSON.stringify(passing.slice(query.offset, need)), query.datasetId],
                )
              ).map((r) => [r.seq, r.id]),
        );
      } else {
        await sqlFilters();
        const f = new Builder(query.userId);
        const rows =
          best.size === 0
            ? []
            : await this.all<{ seq: number; id: string }>(
                `SELECT r.seq AS seq, r.id AS id FROM json_each(${f.p(JSON.stringify([...best.keys()]))}) AS c CROSS JOIN records r ON r.seq = c.value WHERE r.dataset_id = ${f.p(query.datasetId)}${query.filters.map((x) => ` AND ${f.filter(x)}`).join("")}`,
                f.params,
              );
        idOf = new Map(rows.map((r) => [r.seq, r.id]));
        passing = [...best.keys()].filter((seq) => idOf.has(seq));
      }
      if (complete || passing.length >= need) {
        const hits = passing
          .slice(query.offset, need)
          .filter((seq) => idOf.has(seq))
          .map((seq) => ({ recordId: idOf.get(seq)!, score: -best.get(seq)! }));
        return { hits, ...totalOf(hits) };
      }
      // Grow by the observed pass rate (at least 4x), but first to the rows kept: more costs FTS5's bm25 of every match.
      const rate = Math.max(passing.length, 1) / Math.max(rows.length, 1);
      const grown = Math.max(k * 4, Math.ceil((need / rate) * 1.5));
      const available = kept();
      k = available > k && available < grown ? available : grown;
    }
  }

  /**
   * A search one of whose filters passes few records (sqlite-text-candidates.ts: the answered records of a response
   * status or value filter, the caller's or anyone's; the completed records): the FTS rows and scores of those records
   * only (on a read thread, answeredRows), ordered as the other paths order (by score; in windows for a query other than
   * one plain word), the other filters tested on the records that match the text (fewer than the candidates: at 1M
   * records an admin's word + response value tested 5K-100K matches in SQL), the total exact up to the plain path's bound.
   */
  private async answeredSearch(a: AnsweredSearch): Promise<SearchResult | null> {
    const { query, field, expression, key, lo, hi, start } = a;
    const raw = rawSqliteOf(this.db);
    if (!raw || hi >= 2 ** 32) return null;
    this.answeredSearches++;
    // Counted as textCount counts (the plain path): exactly up to the text's bound, or the filter bound for filters other than the queue's.
    const limit = textCountLimit(query);
    const totalOf = (n: number) => (limit !== null && n > limit ? { total: limit, totalIsLowerBound: true } : { total: n });
    const candidates = start.seqs;
    if (candidates.length === 0) return { hits: [], total: 0 };
    if (start.rest.length > 0) return this.matchedThenFiltered(a, totalOf);
    const need = query.offset + query.limit;
    // One plain word: its best rows ranked ahead (or cached) are the start of its order; when enough of them are candidates
    // the page comes from them and only the total reads the candidates' matches, without scores (bm25 of every candidate's
    // rows, ~1.6 µs each, is what costs: 50,000 answered records of a word in 79% of the records, ~60K rows).
    const ahead = this.windowOf(key) === 0 ? await this.answeredFromRanked(raw, key, candidates, need) : null;
    // The ranking extension reads the rows in C (tessera_answered): the records counted and the page's best kept there.
    const inC =
      textRankingOf(this.db).scoring === "tessera_bm25" && this.options.answeredMembers !== false && this.options.answeredTop !== false;
    let page: [number, { fr: number; bm: number }][];
    let total: number;
    if (ahead) {
      this.answeredAhead++;
      page = ahead.slice(query.offset, need);
      const counted = await this.answeredRows(
        raw,
        key,
        expression,
        field,
        candidates,
        false,
        hi - lo + 1,
        inC ? { k: 0, lo, width: 0 } : null,
      );
      total = counted.records ?? counted.rows[0]![0];
    } else if (inC) {
      // The windows' width first (text-window.ts): the k best records are kept in the windows' order. Not read when every
      // candidate lies in the first `window` records (a team member's first records, a dataset's first annotator): the first
      // window holds at least those, so one window orders them (its read was ~10 of a phrase's ~21 ms of CPU at 1M).
      const window = this.windowOf(key);
      const widthNeeded = window > 0 && candidates[candidates.length - 1]! - lo >= window;
      if (widthNeeded) this.answeredWidths++;
      const width = widthNeeded ? await this.windowWidth(raw, key, expression, lo, hi, field, window) : 0;
      const read = await this.answeredRows(raw, key, expression, field, candidates, true, hi - lo + 1, { k: need, lo, width });
      page = read.rows.slice(query.offset, need).map(([fr, bm]) => [Math.floor(fr / 1024), { fr, bm }]);
      total = read.records!;
    } else {
      const best = bestRows((await this.answeredRows(raw, key, expression, field, candidates, true, hi - lo + 1, null)).rows);
      // The windows' width (text-window.ts), from the query's first matching records in record order.
      const window = this.windowOf(key);
      const width = window > 0 && best.size > 0 ? await this.windowWidth(raw, key, expression, lo, hi, field, window) : 0;
      const order = [...best.entries()].sort(
        ([sa, a], [sb, b]) => windowOf(sa, lo, width) - windowOf(sb, lo, width) || a.bm - b.bm || a.fr - b.fr,
      );
      page = order.slice(query.offset, need);
      total = best.size;
    }
    const idOf = await this.idsOf(
      query.datasetId,
      page.map(([seq]) => seq),
    );
    const hits = page.filter(([seq]) => idOf.has(seq)).map(([seq, b]) => ({ recordId: idOf.get(seq)!, score: -b.bm }));
    return { hits, ...totalOf(total) };
  }

  /**
   * answeredSearch with filters left to test: the candidates' rows read and scored first, then the filters in SQL on the
   * records that match (one probe each, ~10 µs, instead of one per candidate), ordered as the other paths order.
   */
  private async matchedThenFiltered(
    { query, field, expression, key, lo, hi, start, sqlFilters }: AnsweredSearch,
    totalOf: (n: number) => { total: number; totalIsLowerBound?: boolean },
  ): Promise<SearchResult> {
    const raw = rawSqliteOf(this.db)!;
    const best = bestRows((await this.answeredRows(raw, key, expression, field, start.seqs, true, hi - lo + 1, null)).rows);
    if (best.size === 0) return { hits: [], total: 0 };
    await sqlFilters();
    const f = new Builder(query.userId);
    const rows = await this.all<{ seq: number; id: string }>(
      `SELECT r.seq AS seq, r.id AS id FROM json_each(${f.p(JSON.stringify([...best.keys()]))}) AS c CROSS JOIN records r ON r.seq = c.value WHERE r.dataset_id = ${f.p(query.datasetId)}${start.rest.map((x) => ` AND ${f.filter(x)}`).join("")}`,
      f.params,
    );
    if (rows.length === 0) return { hits: [], total: 0 };
    const idOf = new Map(rows.map((r) => [r.seq, r.id]));
    // The windows' width (text-window.ts), from the query's first matching records in record order.
    const window = this.windowOf(key);
    const width = window > 0 ? await this.windowWidth(raw, key, expression, lo, hi, field, window) : 0;
    const page = [...best.entries()]
      .filter(([seq]) => idOf.has(seq))
      .sort(([sa, a], [sb, b]) => windowOf(sa, lo, width) - windowOf(sb, lo, width) || a.bm - b.bm || a.fr - b.fr)
      .slice(query.offset, query.offset + query.limit);
    return { hits: page.map(([seq, b]) => ({ recordId: idOf.get(seq)!, score: -b.bm })), ...totalOf(idOf.size) };
  }

  /**
   * The candidates among a plain word's best rows kept (ranked ahead, or cached: a prefix of FTS5's ranking), each
   * record's first row, in order, when at least `need` are there or the rows are all of the word's; else null.
   */
  private async answeredFromRanked(
    raw: SQLite.Database,
    key: string,
    candidates: Uint32Array,
    need: number,
  ): Promise<[number, { fr: number; bm: number }][] | null> {
    return this.db.connection().execute(async () => {
      const ranked = this.matches(raw, key).ranked;
      if (!ranked) return null;
      const out: [number, { fr: number; bm: number }][] = [];
      const seen = new Set<number>();
      for (let i = 0; i < ranked.fr.length && out.length < need; i++) {
        const seq = Math.floor(ranked.fr[i]! / 1024);
        if (seen.has(seq)) continue;
        seen.add(seq);
        if (sortedHas(candidates, seq)) out.push([seq, { fr: ranked.fr[i]!, bm: ranked.bm[i]! }]);
      }
      return out.length >= need || ranked.complete ? out : null;
    });
  }

  /** The ids of these seqs' records of the dataset. */
  private async idsOf(datasetId: string, seqs: number[]): Promise<Map<number, string>> {
    if (seqs.length === 0) return new Map();
    const rows = await this.all<{ seq: number; id: string }>(
      "SELECT r.seq AS seq, r.id AS id FROM json_each(?) AS c CROSS JOIN records r ON r.seq = c.value WHERE r.dataset_id = ?",
      [JSON.stringify(seqs), datasetId],
    );
    return new Map(rows.map((r) => [r.seq, r.id]));
  }

  /**
   * The FTS rows (rowid, score) of the query in the `candidates` records (sorted seqs) of a dataset of `records` seqs,
   * scored as the other paths score them, or (`scored` false) their number of distinct records as one row [n, 0]
   * (sqlite-text-answered.ts answeredRead: the query's rows in ranges around the candidates, the others dropped by a
   * bitmap before they are scored). On a text match thread when there are any, with the phrases' row counts known here
   * (the missing ones counted there: a word in 79% of 1M records is ~45 ms of counting), else here.
   */
  private async answeredRows(
    raw: SQLite.Database,
    key: string,
    expression: string,
    field: FtsField,
    candidates: Uint32Array,
    scored: boolean,
    records: number,
    /**
     * Read in C (tessera_answered): the records counted and the `k` best kept in the windows' order (AnsweredRead.top). Given
     * only when the search decided so (answeredSearch's `inC`: the extension loaded, its members' bitmap and top not turned off).
     */
    top: { k: number; lo: number; width: number } | null,
  ): Promise<{ rows: [number, number][]; records: number | null }> {
    const extension = textRankingOf(this.db).scoring === "tessera_bm25";
    const read: Omit<AnsweredRead, "known"> = {
      expression,
      field,
      seqs: candidates,
      records,
      // One plain word: bm25's own score (the word's row count given); any other query as scoreHere scores it.
      scoring: !scored ? null : !extension ? "bm25" : this.windowOf(key) === 0 ? "word" : "phrases",
      members: extension && this.options.answeredMembers !== false,
      gap: this.options.answeredGap ?? ANSWERED_GAP,
      seekRows: this.options.answeredGap !== undefined ? 0 : ANSWERED_SEEK_ROWS,
      maxRanges: ANSWERED_RANGES,
      top: top ? { ...top, k: scored ? top.k : 0, generation: 0 } : null,
    };
    const knownHere = () => this.phraseRowsKnown(raw, expression);
    if (read.top) this.answeredInC++;
    const pool = this.options.offThread !== false ? readPoolFor(this.db) : null;
    const ranking = pool ? await this.db.connection().execute(async () => knownHere()) : null;
    // Many candidates: their two halves (by seq) on two threads at once, each reading half the span (one annotator's wait
    // halved on two cores; the same CPU). Each half is its own read transaction: disjoint records, summed or joined. Not
    // while a row count the score needs is missing: one thread counts it (both would).
    const phrases = phrasesOf(expression);
    const counted =
      !(read.scoring === "word" || (read.scoring === "phrases" && phrases.length > 1)) ||
      phrases.every((p) => ranking?.rows[phraseKey(p)] !== undefined);
    const halves =
      pool && pool.size > 1 && counted && candidates.length >= (this.options.answeredSplit ?? ANSWERED_SPLIT)
        ? [candidates.subarray(0, candidates.length >> 1), candidates.subarray(candidates.length >> 1)]
        : [candidates];
    const answers =
      pool && ranking
        ? await Promise.all(halves.map((seqs) => pool.readAnswered({ read: { ...read, seqs }, ranking }))).catch(() => null)
        : null;
    const out = await this.db.connection().execute(async () => {
      if (answers) {
        // Counted at the version the threads read: kept when it is still the current one.
        for (const answer of answers)
          if (answer.counted > 0 && SqliteText.versionOf(raw).equals(answer.version))
            this.keepPhraseRows(answer.version, answer.phraseRows);
        this.phraseCounts += answers.reduce((n, a) => n + a.counted, 0);
        this.answeredOffThread++;
        if (answers.length === 1) return answers[0]!;
        this.answeredSplits++;
        // Read in C: the records summed, each half's best merged in the windows' order (disjoint records).
        if (read.top) {
          const { lo, width } = read.top;
          const merged = answers
            .flatMap((a) => Array.from(a.fr, (fr, i): [number, number] => [fr, a.bm[i]!]))
            .sort(
              ([fa, ba], [fb, bb]) =>
                windowOf(Math.floor(fa / 1024), lo, width) - windowOf(Math.floor(fb / 1024), lo, width) || ba - bb || fa - fb,
            )
            .slice(0, read.top.k);
          return {
            fr: Float64Array.from(merged, (r) => r[0]),
            bm: Float64Array.from(merged, (r) => r[1]),
            records: answers.reduce((n, a) => n + (a.records ?? 0), 0),
          };
        }
        // A count is one row per half (its distinct records); scored rows are joined.
        if (!scored) return { fr: Float64Array.of(answers.reduce((n, a) => n + (a.fr[0] ?? 0), 0)), bm: Float64Array.of(0) };
        const fr = new Float64Array(answers.reduce((n, a) => n + a.fr.length, 0));
        const bm = new Float64Array(fr.length);
        let at = 0;
        for (const a of answers) {
          fr.set(a.fr, at);
          bm.set(a.bm, at);
          at += a.fr.length;
        }
        return { fr, bm };
      }
      const { version, rows } = knownHere();
      const here = answeredRead((sql) => raw.prepare(sql), { ...read, known: rows }, ANSWERED_HELPERS);
      this.keepPhraseRows(version, here.phraseRows);
      this.phraseCounts += here.counted;
      return here;
    });
    return {
      rows: Array.from(out.fr, (fr, i): [number, number] => [fr, out.bm[i]!]),
      records: "records" in out ? (out.records ?? null) : null,
    };
  }

  /** The query's phrases' row counts kept at the index's version (the rest counted where the rows are read), on the connection. */
  private phraseRowsKnown(raw: SQLite.Database, expression: string): { version: Buffer; rows: Record<string, number> } {
    const version = SqliteText.versionOf(raw);
    const kept = this.phraseRowsAt(version);
    const rows: Record<string, number> = {};
    for (const key of phrasesOf(expression).map(phraseKey)) {
      const n = kept.get(key);
      if (n !== undefined) rows[key] = n;
    }
    return { version, rows };
  }

  /**
   * The records a plain word's page at k rows reads in C (deepRanked): rankedLimit's, when the rows kept do not serve k and
   * that is more than the first RANKED_ROWS (the first pages keep FTS5's bm25 and the words ranked ahead), the ranking
   * extension loaded and read threads there; else 0.
   */
  private async deepLimit(key: string, k: number): Promise<number> {
    const raw = rawSqliteOf(this.db);
    if (
      !raw ||
      this.windowOf(key) !== 0 ||
      this.options.deepTop === false ||
      this.options.offThread === false ||
      !readPoolFor(this.db) ||
      textRankingOf(this.db).scoring !== "tessera_bm25"
    )
      return 0;
    return this.db.connection().execute(async () => {
      const r = this.matches(raw, key).ranked;
      if (serves(r, 0) && (r.complete || r.k >= k)) return 0;
      const limit = rankedLimit(r, 0, k, 0);
      return limit > RANKED_ROWS ? limit : 0;
    });
  }

  /**
   * A plain word's first k records in its order when deepLimit reads them (sqlite-text-deep.ts: its `limit` best records in
   * C on the read threads, kept as the query's ranked rows when the index did not move meanwhile), else null: ranked().
   * Each record's best row: the page loop takes each record's first row (its best) of FTS5's rows.
   */
  private async deepRanked(
    key: string,
    expression: string,
    lo: number,
    hi: number,
    k: number,
  ): Promise<{ fr: number; bm: number }[] | null> {
    const limit = await this.deepLimit(key, k);
    const pool = readPoolFor(this.db);
    const raw = rawSqliteOf(this.db);
    if (limit === 0 || !pool || !raw || hi >= 2 ** 32) return null;
    const ranking = await this.db.connection().execute(async () => this.phraseRowsKnown(raw, expression));
    const top = await deepTop(pool, { expression, lo, hi, k: limit, ranking });
    if (!top) return null;
    this.deepReads++;
    this.rankedReads++;
    return this.db.connection().execute(async () => {
      const entry = this.matches(raw, key);
      if (this.cacheVersion?.equals(top.version)) {
        entry.ranked = { k: limit, fr: top.fr, bm: top.bm, complete: top.fr.length < limit, from: 0, next: null };
        // The halves counted the word's records of the whole range: the total of the pages after this one.
        if (top.records !== null) entry.total = { n: top.records, exact: true };
        this.account(entry);
      } else return null; // the index moved: ranked() as before
      const n = Math.min(k, top.fr.length);
      return Array.from({ length: n }, (_, i) => ({ fr: top.fr[i]!, bm: top.bm[i]! }));
    });
  }

  /** The total kept for a query without filters (Matches.total) as textCount would count it up to `limit`, or null: counted. */
  private async keptTotal(raw: SQLite.Database, key: string, limit: number | null): Promise<Counted | null> {
    return this.db.connection().execute(async () => {
      const t = this.matches(raw, key).total;
      if (!t) return null;
      if (t.exact) return limit !== null && t.n > limit ? { n: limit, lowerBound: true } : { n: t.n, lowerBound: false };
      return limit !== null && limit <= t.n ? { n: limit, lowerBound: true } : null;
    });
  }

  /** Keeps a query's total counted at the index version `version` (read before the count), unless the index moved since. */
  private async keepTotal(raw: SQLite.Database, key: string, version: Buffer, total: { n: number; exact: boolean }): Promise<void> {
    await this.db.connection().execute(async () => {
      if (SqliteText.versionOf(raw).equals(version)) this.matches(raw, key).total = total;
    });
  }

  /** The windows' width of a query (rankWindows): its first `window` + 1 matching records, read on a read thread (kept) or here. */
  private async windowWidth(
    raw: SQLite.Database,
    key: string,
    expression: string,
    lo: number,
    hi: number,
    field: FtsField,
    window: number,
  ): Promise<number> {
    if (this.options.offThread !== false) await this.prefetch(key, expression, lo, hi, field, false, 0, window + 1);
    return this.db.connection().execute(async () => {
      const entry = this.matches(raw, key);
      let first: Uint32Array | null =
        entry.seqs ??
        (entry.prefix && (entry.prefix.complete || entry.prefix.length > window)
          ? entry.prefix.seqs.subarray(0, entry.prefix.length)
          : null);
      if (!first) {
        const rows = raw
          .prepare(
            `SELECT rowid >> 10 FROM records_fts WHERE records_fts MATCH ? AND ${FTS_ROWID_RANGE}${field !== null ? ` AND ${ftsFieldSql(field)}` : ""} ORDER BY rowid`,
          )
          .pluck()
          .iterate(expression, lo * 1024, hi * 1024 + 1023, ...(field !== null ? [field] : [])) as Iterable<number>;
        const seqs: number[] = [];
        for (const seq of rows) {
          if (seqs[seqs.length - 1] !== seq) seqs.push(seq);
          if (seqs.length > window) break;
        }
        first = Uint32Array.from(seqs);
      }
      return first.length > window ? first[window]! - lo : 0;
    });
  }

  /**
   * The k best FTS rows of the query from the cache, or from FTS5 (then kept): a cached prefix of at
   * least k rows (or of all of them) answers any k up to its length, rows and scores as FTS5 gave them.
   * At least RANKED_ROWS are kept: FTS5 scores every match whatever the limit (the cost is the same),
   * and the annotator's next pages and Submits (each answered record leaves the queue) then stay
   * within the prefix for hundreds of records instead of re-ranking after a few dozen.
   */
  private async ranked(
    raw: SQLite.Database,
    key: string,
    /** The SQL of the best `limit` rows, or (`window` > 0) of every row in rowid order with its score, from the record `start` on. */
    rowsSql: (limit: number, start?: number) => { sql: string; params: Param[] },
    k: number,
    window: number,
    /** The range's first seq (rankWindows). */
    lo: number,
    /** A windowed order: the first record the page could show (rankWindows' `from`). */
    from = 0,
  ): Promise<{ fr: number; bm: number }[]> {
    return this.db.connection().execute(async () => {
      const entry = this.matches(raw, key);
      let ranked = entry.ranked;
      if (!serves(ranked, from) || (!ranked.complete && ranked.k < k)) {
        const limit = rankedLimit(ranked, from, k, window);
        this.rankedReads++;
        if (window > 0) {
          // Whole windows, after those kept when they serve this page (each window read once), else from the first record.
          const before = this.options.windowsOnce !== false ? goesOnAfter(ranked, from) : null;
          const { sql, params } = rowsSql(limit, before?.next.seq);
          const rows = raw
            .prepare(sql)
            .raw()
            .iterate(...params) as Iterable<[number, number]>;
          const w = rankWindows(rows, limit - (before?.k ?? 0), window, lo, 0, WINDOW_STEPS, before ? 0 : from, before?.next.width ?? 0);
          this.windowRows += w.fr.length;
          ranked = windowedRanked(w, from, before);
        } else {
          const { sql, params } = rowsSql(limit);
          const rows = raw
            .prepare(sql)
            .raw()
            .all(...params) as [number, number][];
          const fr = Float64Array.from(rows, (r) => r[0]);
          ranked = { k: limit, fr, bm: Float64Array.from(rows, (r) => r[1]), complete: fr.length < limit, from: 0, next: null };
        }
        entry.ranked = ranked;
        this.account(entry);
      }
      const n = Math.min(k, ranked.fr.length);
      const out = new Array<{ fr: number; bm: number }>(n);
      for (let i = 0; i < n; i++) out[i] = { fr: ranked.fr[i]!, bm: ranked.bm[i]! };
      return out;
    });
  }

  /** Candidates from which a page tests the queue's filters in memory (queueTest) instead of in SQL. */
  private get queueInMemory(): number {
    const n = this.options.queueInMemory;
    return n === false ? Infinity : (n ?? QUEUE_IN_MEMORY);
  }

  /** The queue's filters (queueShaped) as a test per seq: the in-memory record statuses and the caller's answers (the search's exclusions). */
  private async queueTest(exclusionsOf: () => QueueExclusions): Promise<(seq: number) => boolean> {
    const { excluded } = await this.db.connection().execute(async () => exclusionsOf());
    return (seq) => !excluded(seq);
  }

  /**
   * The records a bounded total's walk (queueTextCount) needs to pass, with the seqs the queue's filters exclude, in
   * order (at most `max` of them, else undefined: the walk reads to its cap). Null-free: only for the queue's shape.
   */
  private async queueUntil(
    query: SearchQuery,
    limit: number,
    max: number,
    /** The search's exclusions (built once per search, on the connection). */
    exclusionsOf: () => QueueExclusions,
  ): Promise<{ passing: number; excluded: Uint32Array } | undefined> {
    const raw = rawSqliteOf(this.db);
    const split = splitPending(query.filters);
    if (!raw || (split && query.userId === null && !(await this.answeredSetIsSmall(query.datasetId)))) return undefined;
    const excluded = await this.db.connection().execute(async () => exclusionsOf().list(max));
    return excluded ? { passing: limit + 1, excluded } : undefined;
  }

  /** The filters of the queue's cached total (queueTextCount): a record status terms filter and/or response status `pending`. */
  private queueShaped(query: SearchQuery): boolean {
    const split = splitPending(query.filters);
    const others = split ? split.others : query.filters;
    const statusFilter = (f: SearchFilter) => f.type === "terms" && f.scope.entity === "record" && f.scope.property === "status";
    return !(others.length > 1 || (others.length === 1 && !statusFilter(others[0]!)) || (!split && others.length === 0));
  }

  /**
   * A query whose matches are not cached yet: the FTS part (the distinct matching seqs for the queue's
   * total, the best rows by bm25 for a page in score order) computed on the read threads
   * (sqlite-read-pool.ts) while this thread answers other calls, then kept if the index did not change
   * meanwhile; else (or without threads, or on a thread's error) the callers below compute it here.
   * Concurrent searches of the same query wait for the same job.
   */
  private async prefetch(
    key: string,
    expression: string,
    lo: number,
    hi: number,
    field: FtsField,
    seqs: boolean,
    /** The best FTS rows wanted (0: none). */
    k: number,
    /** The first distinct matching seqs wanted (0: none), for a bounded total. */
    prefix: number,
    /** Fewer when enough of them pass the queue's exclusions (queueUntil). */
    until?: { passing: number; excluded: Uint32Array },
    /** A windowed order: the first record the page could show (rankWindows' `from`). */
    from = 0,
  ): Promise<void> {
    const pool = readPoolFor(this.db);
    const raw = rawSqliteOf(this.db);
    if (!pool || !raw || hi >= 2 ** 32) return;
    const window = this.windowOf(key);
    const missing = await this.db.connection().execute(async () => {
      const entry = this.matches(raw, key);
      const wantSeqs = seqs && !entry.seqs;
      const r = entry.ranked;
      const wantRanked = k > 0 && (!serves(r, from) || (!r.complete && r.k < k)) ? rankedLimit(r, from, k, window) : 0;
      // Whole windows kept that serve this page: the next ones are read after them (each window read once).
      const before = wantRanked > 0 && window > 0 && this.options.windowsOnce !== false ? goesOnAfter(r, from) : null;
      const known = entry.prefix;
      const wantPrefix =
        prefix > 0 && !entry.seqs && (!known || (!known.complete && known.length < prefix && !passEnough(known.seqs, known.length, until)))
          ? prefix
          : 0;
      return { wantSeqs, wantRanked, wantPrefix, before: before && { ...before.next, from: before.from, k: before.k } };
    });
    if (!missing.wantSeqs && missing.wantRanked === 0 && missing.wantPrefix === 0) return;
    const before = missing.before;
    const job = {
      expression,
      lo: lo * 1024,
      hi: hi * 1024 + 1023,
      field,
      seqs: missing.wantSeqs,
      ranked: before ? missing.wantRanked - before.k : missing.wantRanked,
      prefix: missing.wantPrefix,
      window,
      passing: missing.wantPrefix > 0 && until ? until.passing : 0,
      ...(window > 0 && missing.wantRanked > 0 ? (before ? { start: { seq: before.seq, width: before.width } } : { from }) : {}),
    };
    if (job.ranked > 0) this.rankedReads++;
    const excluded = job.passing > 0 && until ? { excluded: until.excluded } : {};
    const jobKey = matchJobKey({ ...job, ...excluded });
    let pending = this.inFlight.get(jobKey);
    if (!pending) {
      pending = pool
        .run({ ...job, ...excluded, ranking: this.rankingJob(key, expression) })
        .then((answer) => {
          this.windowRows += answer.scoredRows;
          return answer;
        })
        .finally(() => this.inFlight.delete(jobKey));
      this.inFlight.set(jobKey, pending);
    }
    let answer: MatchAnswer;
    try {
      answer = await pending;
    } catch {
      return; // computed on this thread instead
    }
    await this.db.connection().execute(async () => {
      const entry = this.matches(raw, key);
      if (!this.cacheVersion || !answer.version.equals(this.cacheVersion)) return; // the index moved: not adopted
      this.keepPhraseRows(answer.version, answer.phraseRows);
      this.phraseCounts += answer.counted;
      if (answer.seqs && !entry.seqs) entry.seqs = answer.seqs;
      const first = answer.prefix;
      if (first && !entry.seqs && (!entry.prefix || (!entry.prefix.complete && entry.prefix.length < first.seqs.length))) {
        const n = first.seqs.length;
        entry.prefix = { seqs: first.seqs, length: n, next: n > 0 ? (first.seqs[n - 1]! + 1) * 1024 : lo * 1024, complete: first.complete };
        this.prefixSeqs += n;
      }
      const ranked = answer.ranked;
      const r = entry.ranked;
      if (ranked && job.ranked > 0 && answer.windows) {
        const w = { ...ranked, ...answer.windows };
        // After the windows kept: appended while they are still those it went on after (else the page reads them here).
        if (before) {
          if (r && r.next?.seq === before.seq && r.from === before.from && r.k === before.k) entry.ranked = windowedRanked(w, from, r);
        } else if (!serves(r, from) || (!r.complete && r.k < ranked.fr.length)) entry.ranked = windowedRanked(w, from, null);
      } else if (ranked && job.ranked > 0 && (!r || (!r.complete && r.k < job.ranked)))
        entry.ranked = { k: job.ranked, fr: ranked.fr, bm: ranked.bm, complete: ranked.fr.length < job.ranked, from: 0, next: null };
      this.adopted++;
      this.account(entry);
    });
  }

  /**
   * Every distinct matching seq of the query in the range (the entry's, or read here without scores and kept), synchronously
   * on the connection.
   */
  private matchingSeqsHere(raw: SQLite.Database, entry: Matches, expression: string, lo: number, hi: number, field: FtsField): Uint32Array {
    if (entry.seqs) return entry.seqs;
    const rows = raw
      .prepare(
        `SELECT rowid >> 10 FROM records_fts WHERE records_fts MATCH ? AND ${FTS_ROWID_RANGE}${field !== null ? ` AND ${ftsFieldSql(field)}` : ""} ORDER BY rowid`,
      )
      .pluck()
      .all(...[expression, lo * 1024, hi * 1024 + 1023, ...(field !== null ? [field] : [])]) as number[];
    let n = 0;
    for (const seq of rows) if (n === 0 || seq !== rows[n - 1]) rows[n++] = seq;
    const seqs = new Uint32Array(n); // no intermediate copy: a common word has ~1M matches at 1M records
    for (let i = 0; i < n; i++) seqs[i] = rows[i]!;
    if (hi < 2 ** 32) {
      entry.seqs = seqs;
      this.account(entry);
    }
    return seqs;
  }

  /**
   * The page of a text search sorted by another value from the text's matches walked in the sort's order
   * (sqlite-text-sorted.ts): the matches listed on a read thread (or here), the page's records scored as answeredRows
   * scores them. Null: the plain path answers (no order kept for the sort, a dataset sharing its range, a walk given up).
   */
  private async sortedPage(
    query: SearchQuery,
    a: { key: string; expression: string; lo: number; hi: number; field: FtsField },
    runOf: ((sort: SearchSort) => Promise<Uint32Array | null>) | undefined,
  ): Promise<SearchHit[] | null> {
    const raw = rawSqliteOf(this.db);
    if (!raw || !runOf || a.hi >= 2 ** 32 || this.options.textSorts === false) return null;
    const order = await sortOrderOf(query.sort, runOf);
    if (!order) return null;
    if (this.options.offThread !== false) await this.prefetch(a.key, a.expression, a.lo, a.hi, a.field, true, 0, 0);
    const matches = await this.db
      .connection()
      .execute(async () => this.matchingSeqsHere(raw, this.matches(raw, a.key), a.expression, a.lo, a.hi, a.field));
    if (matches.length === 0) return [];
    return this.sorted.page(query, matches, a.lo, a.hi, order, async (seqs) => {
      const read = await this.answeredRows(raw, a.key, a.expression, a.field, seqs, true, a.hi - a.lo + 1, null);
      return new Map([...bestRows(read.rows)].map(([seq, b]) => [seq, b.bm]));
    });
  }

  /**
   * Total of a text search whose filters are only a record status terms filter and/or response
   * status `pending` (the annotation queue's shape), on a dataset alone in its seq range: the distinct
   * matching seqs read in rowid order (no scoring, no per-match probe), minus those the filters
   * exclude: with a record status filter, each match checked against the in-memory statuses
   * (sqlite-status.ts) and the answered records; else against the answered records. Same number as
   * textCount, at the cost of the match walk alone (bench dataset, 100K records, a word in 79% of
   * them: 77 -> 22 ms of CPU). With a count limit (countLimit) the walk stops after `limit + 1`
   * passing records and reads the matches only that far (a word in 72% of 1M records: ~12K of its
   * 878K FTS rows), and never beyond READ_PER_BOUND x (limit + 1) records (then a lower bound: the
   * records passing among those read). Null when the filters have another shape or the excluded set could be large
   * (admin search over an instance holding many more responses), or when there are few matches.
   */
  private async queueTextCount(
    query: SearchQuery,
    lo: number,
    hi: number,
    expression: string,
    field: FtsField,
    key: string,
    limit: number | null,
    /** Other filters (metadata) as a test per seq: bounded totals only. */
    passes: ((seq: number) => boolean) | null,
    /** The search's exclusions (built once per search, on the connection). */
    exclusionsOf: () => QueueExclusions,
  ): Promise<Counted | null> {
    if (passes && limit === null) return null;
    const raw = rawSqliteOf(this.db);
    this.walks++;
    if (!raw) return null;
    const split = splitPending(query.filters);
    if (split && query.userId === null && !(await this.answeredSetIsSmall(query.datasetId))) return null;
    const fewMatches = this.options.fewMatches ?? FEW_MATCHES;
    // The connection itself (no transaction of another request in progress), read synchronously.
    return this.db.connection().execute(async () => {
      // The distinct matching seqs (cached: they do not depend on the user or the records' state).
      const entry = this.matches(raw, key);
      const fieldClause = field !== null ? ` AND ${ftsFieldSql(field)}` : "";
      const fieldParams = field !== null ? [field] : [];
      if (limit !== null && !entry.seqs) {
        // Bounded: the first matches only, as far as the count needs them.
        const prefix = (entry.prefix ??= { seqs: new Uint32Array(0), length: 0, next: lo * 1024, complete: false });
        const readMore = (want: number) => {
          this.walkReads++;
          const rows = Math.ceil(want * 1.25) + 16; // FTS rows: a record may match in several fields
          const seqs = raw
            .prepare(
              `SELECT rowid >> 10 FROM records_fts WHERE records_fts MATCH ? AND ${FTS_ROWID_RANGE}${fieldClause} ORDER BY rowid LIMIT ?`,
            )
            .pluck()
            .all(expression, prefix.next, hi * 1024 + 1023, ...fieldParams, rows) as number[];
          if (prefix.length + seqs.length > prefix.seqs.length) {
            const grown = new Uint32Array(Math.max(prefix.length + seqs.length, prefix.seqs.length * 2));
            grown.set(prefix.seqs.subarray(0, prefix.length));
            prefix.seqs = grown;
          }
          for (const seq of seqs) if (prefix.length === 0 || prefix.seqs[prefix.length - 1] !== seq) prefix.seqs[prefix.length++] = seq;
          prefix.complete = seqs.length < rows;
          if (seqs.length > 0) prefix.next = (seqs[seqs.length - 1]! + 1) * 1024;
        };
        // The records of the word read at most (READ_PER_BOUND times the bound, and beyond the few matches): then a lower bound.
        const cap = walkCap(limit, fewMatches);
        if (prefix.length <= fewMatches && !prefix.complete)
          readMore(Math.max(1, Math.min(cap, Math.max(limit + 1, fewMatches + 1)) - prefix.length));
        // Few matches, all known: one probe of `records` per match (cheaper than reading every excluded record), no FTS5 query again
        // (for a prefix of many words each FTS5 query merges their doclists again: tens of ms on this thread).
        if (prefix.complete && prefix.length <= fewMatches && !passes) {
          this.account(entry);
          const b = new Builder(query.userId);
          const seqs = JSON.stringify(Array.from(prefix.seqs.subarray(0, prefix.length)));
          const n = raw
            .prepare(
              `SELECT count(*) FROM json_each(${b.p(seqs)}) AS c CROSS JOIN records r ON r.seq = c.value WHERE r.dataset_id = ${b.p(query.datasetId)}${query.filters.map((f) => ` AND ${b.filter(f)}`).join("")}`,
            )
            .pluck()
            .get(...b.params) as number;
          return n > limit ? { n: limit, lowerBound: true } : { n, lowerBound: false };
        }
        const excluded = passes ? (seq: number) => !passes(seq) : exclusionsOf().excluded;
        let n = 0;
        let i = 0;
        for (;;) {
          for (; i < prefix.length && i < cap && n <= limit; i++) if (!excluded(prefix.seqs[i]!)) n++;
          if (n > limit || (prefix.complete && i >= prefix.length) || i >= cap) break;
          readMore(Math.max(1, Math.min(Math.max(limit + 1 - n, prefix.length), cap - prefix.length)));
        }
        this.account(entry);
        if (n > limit) return { n: limit, lowerBound: true };
        // Stopped at the cap with matches left unread: the records passing among those read, at least.
        return { n, lowerBound: !(prefix.complete && i >= prefix.length) };
      }
      const seqs = this.matchingSeqsHere(raw, entry, expression, lo, hi, field);
      if (passes) {
        // Every match listed already (an exact total was asked for before): the in-memory test on each.
        let n = 0;
        for (let i = 0; i < seqs.length; i++) if (passes(seqs[i]!) && ++n > limit!) return { n: limit!, lowerBound: true };
        return { n, lowerBound: false };
      }
      // Few matches: textCount's probe per match is cheaper than reading every excluded record.
      if (seqs.length <= fewMatches) return null;
      const exclusions = exclusionsOf();
      let dropped = 0;
      if (exclusions.byStatus) {
        // Statuses from memory: one lookup per match (~1M matches in a few ms).
        const excluded = exclusions.excluded;
        for (let i = 0; i < seqs.length; i++) if (excluded(seqs[i]!)) dropped++;
      } else {
        // Only the answered records (few): looked up among the sorted matches.
        for (const seq of exclusions.answered) if (sortedHas(seqs, seq)) dropped++;
      }
      const n = seqs.length - dropped;
      return limit !== null && n > limit ? { n: limit, lowerBound: true } : { n, lowerBound: false };
    });
  }

  /**
   * Number of the dataset's records matching the text and the filters. The matches are the distinct
   * seqs of the FTS rows (no scoring); the dataset is checked through `records_dataset_seq_idx`
   * (or not at all when no other dataset has records in the range). A `pending` response status
   * filter is counted as matches - answered matches (see pendingQueueCount) when there are more
   * matches than responses to go through, else with one probe per match. With a count limit: the
   * first `limit + 1` passing records in seq order, one probe per match, then no further.
   */
  private async textCount(query: SearchQuery, fts: (b: Builder) => string, exclusive: boolean, limit: number | null): Promise<Counted> {
    this.sqlCounts++;
    // `limit` is textCountLimit's: filters other than the queue's (a suggestion, a response value) up to the filter bound, as
    // PostgreSQL counts them (docs/api.md, "Totals"; at 1M records a new word + a suggestion value probed 10,001 passing matches: ~750 ms of CPU).
    const b = new Builder(query.userId);
    // Record status and metadata filters read nothing else of the record: stay in the (dataset, status, seq) index.
    const statusOnly = (filters: SearchFilter[]) =>
      filters.some((f) => f.scope.entity === "record" && f.scope.property === "status" && f.type === "terms") &&
      filters.every(
        (f) => f.scope.entity === "metadata" || (f.scope.entity === "record" && f.scope.property === "status" && f.type === "terms"),
      );
    if (limit !== null) {
      const matches = `SELECT rowid >> 10 AS seq FROM ${fts(b)}`;
      const sqlText =
        query.filters.length === 0 && exclusive
          ? `SELECT count(*) AS n FROM (SELECT DISTINCT m.seq FROM (${matches}) m LIMIT ${b.p(limit + 1)})`
          : `SELECT count(*) AS n FROM (SELECT DISTINCT m.seq FROM (${matches}) m CROSS JOIN records r${statusOnly(query.filters) ? " INDEXED BY records_dataset_status_seq_idx" : ""} ON r.seq = m.seq WHERE r.dataset_id = ${b.p(query.datasetId)}${query.filters.map((f) => ` AND ${b.filter(f)}`).join("")} LIMIT ${b.p(limit + 1)})`;
      const n = (await this.all<{ n: number }>(sqlText, b.params))[0]?.n ?? 0;
      return n > limit ? { n: limit, lowerBound: true } : { n, lowerBound: false };
    }
    const cte = `WITH m AS MATERIALIZED (SELECT DISTINCT rowid >> 10 AS seq FROM ${fts(b)}) `;
    const perMatch = (filters: SearchFilter[]) => {
      if (filters.length === 0 && exclusive) return "SELECT count(*) FROM m";
      return `SELECT count(*) FROM m CROSS JOIN records r${statusOnly(filters) ? " INDEXED BY records_dataset_status_seq_idx" : ""} ON r.seq = m.seq WHERE r.dataset_id = ${b.p(query.datasetId)}${filters.map((f) => ` AND ${b.filter(f)}`).join("")}`;
    };
    const split = splitPending(query.filters);
    let sqlText: string;
    if (!split) sqlText = `${cte}SELECT (${perMatch(query.filters)}) AS n`;
    else {
      // CASE evaluates only the branch taken. Responses to go through: the user's, or (admin) all of them (estimate: largest rowid).
      const responses =
        query.userId !== null
          ? `(SELECT count(*) FROM responses WHERE user_id = ${b.p(query.userId)})`
          : "(SELECT coalesce(max(rowid), 0) FROM responses)";
      const probe = perMatch(query.filters);
      const all = perMatch(split.others);
      // `+r.seq`: the IN list must stay a probe per answered record, not become a records lookup per match.
      const answered = `SELECT count(*) FROM ${b.answeredRecords(query.datasetId)} AND +r.seq IN m${split.others.map((f) => ` AND ${b.filter(f)}`).join("")}`;
      sqlText = `${cte}SELECT CASE WHEN (SELECT count(*) FROM m) <= ${responses} THEN (${probe}) ELSE (${all}) - (${answered}) END AS n`;
    }
    const rows = await this.all<{ n: number }>(sqlText, b.params);
    return { n: rows[0]?.n ?? 0, lowerBound: false };
  }
}
