import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import {
  Builder,
  onSearchRows,
  queueFilters,
  RECORD_STATUSES,
  queryRows,
  textCount,
  textMatchSql,
  textVersionRecords,
  textWords,
  versionRecordsSql,
} from "./postgres-sql.js";
import { countLimit, filterCountLimit, type SearchFilter, type SearchQuery, type SearchResult } from "./search-port.js";
import type { PostgresRankAhead, RankedAhead } from "./postgres-rank-ahead.js";
import { pageAhead, totalAhead } from "./postgres-text-ahead.js";
import { firstMatches } from "./postgres-text-walk.js";
import { headTotal } from "./postgres-text-head-total.js";
import { firstWithStatusSql } from "./postgres-first-with-status.js";
import { fieldCondition, fieldWalk } from "./postgres-text-field.js";
import { bucketRowsSql } from "./postgres-text-bucket-rows.js";
import { windowPassing, windowPassingSql } from "./postgres-window-passing.js";
import { FILTERED_TOTAL_BOUND, filteredTotal } from "./postgres-text-filtered.js";
import { ANSWERED_MAX, answeredStatusFilter, answeredStatuses } from "./answered-filter.js";
import { answeredTotal } from "./postgres-text-answered-total.js";
import { AnsweredSeqs } from "./postgres-answered-seqs.js";
import { sortedHas } from "./sorted-array.js";
import { statusBuckets } from "./postgres-text-status.js";
import { RespondedBuckets } from "./postgres-text-responded.js";
import { rankingSql, unfilteredPage } from "./postgres-text-deep.js";

/** Best matches kept per cached query, at least (ts_rank scores every match whatever the limit). */
const RANKED_ROWS = 1024;
/** Memory budget of the cached match lists of all datasets (bytes); least recently used first out. */
const CACHE_BYTES = 64 * 1024 * 1024;
/**
 * Matching records per window of the order of a query other than one plain word over all fields
 * (several words, a prefix, one field; docs/api.md): the matching records in record order, in windows
 * of this many, each window by score. Ranking reads each match's field tsvectors (detoasted: ~10-30 µs
 * a record at 1M records), so a window costs ~1,000 of those reads instead of every match's; windows
 * of 10,000 took 0.1-0.4 s at 1M records for two common words (docs/performance.md). A query matching
 * at most this many records gets the plain score order.
 */
const RANK_WINDOW = 1_000;

/**
 * What a text query yields from `records_fts` alone, whoever asks: the best matches by score (a
 * prefix of the ranking, `complete` when that is all of them) and every matching seq (for totals).
 * The filters that depend on the user or on record state are applied to these at query time, so a
 * Submit does not invalidate them.
 */
interface Ranked {
  seqs: number[];
  scores: number[];
  complete: boolean;
}

/**
 * The first `k` (or more) rows of a query's order (seq, score), `complete` when that is all of them; `previous`: the
 * rows read before, which a windowed order extends instead of reading them again.
 */
type Ranking = (k: number, previous: Ranked | null) => Promise<Ranked>;

interface Matches {
  /** NaN until known: a windowed query's new entry takes it from its first windows' snapshot (adopt). */
  version: number;
  /** The dataset's records at this version (null: not read); counts move them only with the version. */
  records: number | null;
  ranked: Ranked | null;
  /** Every matching seq, ascending. */
  all: Float64Array | null;
  /** The word's ranking ahead at this version (postgres-rank-ahead.ts), once found. */
  ahead?: RankedAhead;
  /**
   * The first pending record when the windows were read without a completed head's whole windows (firstMatches skipHead: the
   * pending queue's own entries): valid while no record before it is pending again.
   */
  headFrom?: number;
  bytes: number;
}

/** The caller's answered records (ascending seqs) that stand for a query's response status filter `status`. */
interface Within {
  seqs: Float64Array;
  status: SearchFilter;
}

/** The cache key of a text query: its dataset, field and words. */
const entryKey = (query: SearchQuery, words: { word: string; prefix: boolean }[]): string =>
  `${query.datasetId}\u0000${query.text!.field ?? ""}\u0000${JSON.stringify(words)}`;

/**
 * Text search of the PostgreSQL adapter in score order (no vector, no sort), with a cache of the
 * user-independent part, as the embedded store has (sqlite-text.ts): the annotator repeats the same
 * text query on every Submit, and PostgreSQL ranks every match with ts_rank (reading each match's
 * tsvector: ~0.8 s for a word in 79% of 100K records), then counts them again.
 *
 * Kept per (dataset, field, words) while the dataset's text version is unchanged: the largest id of
 * its rows in `text_search_changes` (migration 0017), which statement-level triggers append to when
 * a record of the dataset is inserted or deleted or its fields or dataset change. The version is read
 * before the matches, so cached matches are never older than their version; every replica reads the
 * same table, so none keeps matches another one's writes changed. ts_rank scores a record from its own
 * tsvector, so no other dataset's writes matter. LRU under CACHE_BYTES.
 *
 * Same hits, scores and totals as the uncached query (postgres-search.ts), which remains for sorted
 * searches; totals with filters other than the queue's (response status pending, record status) count
 * in SQL.
 */
export class PostgresText {
  private readonly cache = new Map<string, Matches>();
  private bytes = 0;
  /** The buckets of the records anyone answered (the admin's Submitted filter with text: postgres-text-responded.ts). */
  private readonly responded: RespondedBuckets;
  /** The callers' answered records of each dataset (answeredSearch), kept under each caller's answer version. */
  readonly answeredSeqs: AnsweredSeqs;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly cacheBytes = CACHE_BYTES,
    private readonly rankAhead: PostgresRankAhead | null = null,
    /** Records per window of the order of queries other than one plain word (RANK_WINDOW; tests set fewer). */
    private readonly rankWindow = RANK_WINDOW,
    /** `false`: no search from the caller's answered records (answeredSearch; tests compare both paths). */
    private readonly answeredPath = true,
    /** How the windows' matches are found (postgres-text-walk.ts; tests take each path on few records). */
    private readonly walkOptions: Parameters<typeof firstMatches>[3] = {},
    /** Whether `records_fts`'s bucket index is valid (postgres-text-buckets.ts; a new database has it from its migration). */
    private readonly bucketIndex: () => Promise<boolean> = async () => true,
    /** Whether `record_search`'s index of words and terms is valid (migration 0031; a new database has it from its migration). */
    private readonly wordsTermsIndex: () => Promise<boolean> = async () => true,
    /** `false`: no search from a record status's records (statusSearch; tests compare both paths). */
    private readonly statusPath = true,
    /** Whether `records_fts`'s index with the fields' names is valid (migration 0037; a new database has it from its migration). */
    private readonly fieldIndex: () => Promise<boolean> = async () => true,
  ) {
    this.responded = new RespondedBuckets(db);
    this.answeredSeqs = new AnsweredSeqs(db);
  }

  /** Searches answered from a record status's records (statusSearch; tests). */
  statusSearches = 0;

  /** Searches answered from the caller's answered records (answeredSearch; tests, diagnostics), their pages from a word ranked ahead. */
  answeredSearches = 0;
  answeredAhead = 0;
  /** Windowed searches whose status filter was tested on the caller's answered records in memory (windowedSearch; tests). */
  answeredWindowed = 0;

  /** Times a plain word's every match was ranked (tests: the SDK iterating a query's pages reads it a few times). */
  rankedReads = 0;

  /** Memory held by the cached match lists (bytes), for tests and measurements. */
  get cachedBytes(): number {
    return this.bytes;
  }

  /** The hits and total of a text search in score order (`query.text` set, no vector, no sort). */
  async search(query: SearchQuery): Promise<SearchResult> {
    const text = query.text!;
    const words = textWords(text.q);
    if (words.length === 0) return { hits: [], total: 0 };
    // Several words, a prefix or one field: ranked window by window (RANK_WINDOW), not every match.
    const windowed = words.length > 1 || words[0]!.prefix || text.field !== null;
    // Answered records only (Submitted, Discarded, Draft): from the caller's few answered records, not from the text's matches.
    const answered = await this.answeredSearch(query, words, windowed);
    if (answered && "hits" in answered) return answered;
    // A record status without pending (the completed head): from its few records, not from the text's matches.
    const byStatus = await this.statusSearch(query, words, windowed);
    if (byStatus) return byStatus;
    const key = entryKey(query, words);
    // The matches of the dataset, from records_fts (`b` adds the tsquery's and the dataset's parameters).
    const matches = (
      b: Builder,
    ) => `WITH q AS (SELECT ${b.tsQuery(words)} AS query) SELECT f.record_seq AS seq, max(ts_rank(f.tsv, q.query))::float8 AS score
      FROM records_fts f JOIN records r ON r.seq = f.record_seq, q WHERE f.tsv @@ q.query AND r.dataset_id = ${b.p(query.datasetId)}${text.field !== null ? ` AND f.field = ${b.p(text.field)}` : ""}
      GROUP BY f.record_seq`;
    const limit = countLimit(query);
    if (windowed) return this.windowedSearch(query, key, matches, limit, answered ?? undefined);
    // One plain word ranked ahead (issue 31): its first pages and its bounded total without reading every match; its ranking
    // read with the version when the entry lacks it.
    const { entry, looked } = await this.entryLooked(query, key, words);
    const ahead = await this.ahead(query, entry, words, looked);
    const ranking = async (k: number, previous: Ranked | null) => {
      const limit = rankingLimit(k, previous, query.filters.length === 0);
      this.rankedReads++;
      const b = new Builder(query.userId);
      const rows = await queryRows<{ seq: number | string; score: number }>(this.db, rankingSql(b, query, words, limit), b.params);
      return { seqs: rows.map((r) => Number(r.seq)), scores: rows.map((r) => r.score), complete: rows.length < limit };
    };
    const page = async () =>
      (ahead
        ? await pageAhead(this.db, query, words[0]!.word, ahead, entry.records ?? undefined, { bucketIndex: await this.bucketIndex() })
        : null) ?? (await this.page(query, entry, ranking, RANKED_ROWS));
    const counted = async (): Promise<{ total: number; totalIsLowerBound?: true }> => {
      if (limit === null) return { total: await this.total(query, entry, matches) };
      // The pending queue: the completed head's records of the word counted in memory (postgres-text-head-total.ts), else as below.
      const head = ahead ? await headTotal(this.db, query, words[0]!.word, ahead, limit, this.walkOptions?.headIndex) : null;
      const known = head === null && ahead ? await totalAhead(this.db, query, ahead, limit) : head;
      if (known && known !== "undecided") return known;
      // Filters other than the queue's (a metadata filter): counted up to the filter bound (TESSERA_FILTER_TOTAL_BOUND, or the page's end).
      if (query.filters.length > 0 && !queueFilters(query.filters)) {
        const { path: _, ...total } = await filteredTotal(this.db, query, ahead, filterCountLimit(query, FILTERED_TOTAL_BOUND)!, {
          wordsTerms: await this.wordsTermsIndex(),
          records: entry.records ?? undefined,
        });
        return total;
      }
      // Bounded total: the first `limit + 1` passing records (SQL), not every match (postgres-sql.ts textCount).
      const { sql, params } = textCount(query, limit);
      const n = Number((await queryRows<{ n: number | string }>(this.db, sql, params))[0]?.n ?? 0);
      return n > limit ? { total: limit, totalIsLowerBound: true } : { total: n };
    };
    const [hits, total] = await Promise.all([page(), counted()]);
    // A lower bound counted from some of the word's records (filteredTotal) is at least the records up to the page
    // shown, and exact when the page is not full (the page reads every passing match until it is).
    if (total.totalIsLowerBound && hits.length < query.limit && (hits.length > 0 || query.offset === 0))
      return { hits, total: query.offset + hits.length };
    if (total.totalIsLowerBound && hits.length > 0) total.total = Math.max(total.total, query.offset + hits.length);
    return { hits, ...total };
  }

  /**
   * A search whose filters pass only records the caller answered (a response status filter without
   * `pending`: the Submitted, Discarded and Draft views), as on the embedded store
   * (sqlite-text-answered.ts): the other paths walk the text's matches in seq order through `records`
   * and `responses` to find the caller's few answered ones (the bounded total looks for 10,001 of
   * them: seconds at 100K records for a common word). Here: the caller's records with those statuses
   * (responses_user_record_idx; null, the other paths, without a caller), the query's filters and ts_rank
   * on those only, in the order the other paths give: by window (the window of each record among all the
   * dataset's matches, as windows() numbers them, read up to the last candidate only for a windowed
   * query), score (best first), seq. The total is exact up to the count's bound. Beyond ANSWERED_MAX
   * answered records only a plain word ranked ahead is answered here: its page as the other paths take it
   * (pageAhead: the listed records, then the single occurrences by seq) and the candidates that match counted
   * up to the bound, without ranking every one (ts_rank reads each candidate's tsvectors, ~10 us a field);
   * other queries (null) take the other paths.
   */
  private async answeredSearch(
    query: SearchQuery,
    words: { word: string; prefix: boolean }[],
    windowed: boolean,
  ): Promise<SearchResult | Within | null> {
    if (!this.answeredPath || query.userId === null) return null;
    const statuses = answeredStatuses(query.filters);
    if (!statuses) return null;
    // The caller's answered records of the dataset, kept under the caller's answer version (postgres-answered-seqs.ts).
    const answered = await this.answeredSeqs.seqs(query.datasetId, query.userId, statuses);
    if (answered.length === 0) {
      this.answeredSearches++;
      return { hits: [], total: 0 };
    }
    if (answered.length > ANSWERED_MAX) {
      // Ranking every candidate costs in proportion to them (100K records, 10,000 answered: a phrase 5x the other paths' time):
      // beyond ANSWERED_MAX only a plain word whose page the ranking ahead gives is answered here, the rest by the other paths:
      // a windowed query's with the status filter tested on these records in memory (windowedSearch).
      if (windowed) return { seqs: answered, status: answeredStatusFilter(query.filters)! };
      const { entry, looked } = await this.entryLooked(query, entryKey(query, words), words);
      const ahead = await this.ahead(query, entry, words, looked);
      if (!ahead) return null;
      // The word's matches among the caller's answered records, passing the filters, bounded as the other paths bound this
      // query's total (filteredTotal: the filter bound, "1,000+"), counted beside the page; the page from the word's ranking
      // ahead among the same records (its status filter stands for them).
      const status = answeredStatusFilter(query.filters)!;
      const bound = filterCountLimit(query, FILTERED_TOTAL_BOUND);
      const records = entry.records ?? undefined;
      const [hits, n] = await Promise.all([
        pageAhead(this.db, { ...query, filters: query.filters.filter((f) => f !== status) }, words[0]!.word, ahead, records, {
          within: answered,
        }),
        answeredTotal(this.db, query, status, answered, bound, ahead.records / Math.max(records ?? ahead.records, 1)),
      ]);
      if (!hits) return null;
      this.answeredSearches++;
      this.answeredAhead++;
      return bound !== null && n > bound ? { hits, total: bound, totalIsLowerBound: true } : { hits, total: n };
    }
    this.answeredSearches++;
    return this.candidateSearch(query, words, windowed, `{${answered.join(",")}}`, null);
  }

  /**
   * A search with a record status filter without `pending` (the completed records) that passes at most
   * STATUS_BUCKETS_MAX of `records_fts`'s buckets, as on the embedded store (sqlite-text-candidates.ts): the text's rows in
   * those buckets ranked, the filters on those (candidateSearch); otherwise (null) the other paths. At 1M records (18,140 completed, the first ones) the other paths
   * ranked the text's matches until enough of them were completed: 221-672 ms p95 for a word.
   */
  private async statusSearch(
    query: SearchQuery,
    words: { word: string; prefix: boolean }[],
    windowed: boolean,
  ): Promise<SearchResult | null> {
    if (!this.statusPath || !(await this.bucketIndex())) return null;
    // Else, without a caller, the records with a response of the filter's statuses (postgres-text-responded.ts).
    const buckets = (await statusBuckets(this.db, query)) ?? (await this.responded.buckets(query));
    if (!buckets) return null;
    this.statusSearches++;
    if (buckets.length === 0) return { hits: [], total: 0 };
    return this.candidateSearch(query, words, windowed, null, buckets);
  }

  /**
   * A text search of the records `seqs` (a Postgres array literal) only: the query's filters on them, ts_rank on the
   * passing ones that match, in the other paths' order (by window for a windowed query, score, seq), the total exact up to
   * the count's bound. `buckets`: `records_fts`'s buckets the candidates span, the text's GIN entry read in those only
   * (statusSearch), else each candidate's rows are looked up (few answered records).
   */
  private async candidateSearch(
    query: SearchQuery,
    words: { word: string; prefix: boolean }[],
    windowed: boolean,
    candidateSeqs: string | null,
    buckets: number[] | null,
  ): Promise<SearchResult> {
    const limit = countLimit(query);
    const text = query.text!;
    const b = new Builder(query.userId);
    // The buckets' matches by their primary key whatever the statistics say (bucketRowsSql), else the candidates as an array.
    const dataset = b.p(query.datasetId);
    const filters = query.filters.map((x) => b.filter(x));
    const candidates = buckets ? [] : [`r.seq = ANY(${b.p(candidateSeqs ?? "{}")}::bigint[])`];
    const tsq = b.tsQuery(words);
    // The field in the GIN index when it has the fields' names (postgres-text-field.ts).
    const field = fieldCondition(b, text.field, buckets !== null, buckets !== null && (await this.fieldIndex()));
    // A completed head's buckets: the text's GIN entry in those (~20-38 ms at 1M for a word in 12% of the records), then the
    // filters on the matching records; else each candidate's `records_fts` rows (few answered records).
    const statement = buckets
      ? bucketRowsSql(tsq, b.p(`{${buckets.join(",")}}`), field, dataset, filters)
      : `WITH c AS (SELECT r.seq, r.id FROM records r WHERE ${[...candidates, `r.dataset_id = ${dataset}`, ...filters].join(" AND ")}), q AS (SELECT ${tsq} AS query)
        SELECT c.seq AS seq, c.id AS id, max(ts_rank(f.tsv, q.query))::float8 AS score FROM c JOIN records_fts f ON f.record_seq = c.seq, q
        WHERE f.tsv @@ q.query${field} GROUP BY c.seq, c.id`;
    const rows = (await queryRows<{ seq: number | string; id: string; score: number }>(this.db, statement, b.params)).map((r) => ({
      seq: Number(r.seq),
      id: r.id,
      score: r.score,
    }));
    // A windowed order: the first seq of each window after the first, among the matches up to the last candidate.
    let starts: number[] = [];
    if (windowed && rows.length > 0) {
      const w = new Builder(query.userId);
      const match = textMatchSql(w, { ...query, filters: [] }, true);
      const last = w.p(Math.max(...rows.map((r) => r.seq)));
      starts = (
        await queryRows<{ seq: number | string }>(
          this.db,
          `SELECT seq FROM (SELECT r.seq AS seq, row_number() OVER (ORDER BY r.seq) AS n FROM ${match.from}
            WHERE ${match.where.join(" AND ")} AND r.seq <= ${last}) t WHERE n > 1 AND (n - 1) % ${w.p(this.rankWindow)} = 0`,
          w.params,
        )
      ).map((r) => Number(r.seq));
    }
    const windowOf = (seq: number) => starts.filter((s) => s <= seq).length;
    const ordered = rows.map((r) => ({ ...r, win: windowOf(r.seq) })).sort((x, y) => x.win - y.win || y.score - x.score || x.seq - y.seq);
    const hits = ordered.slice(query.offset, query.offset + query.limit).map((r) => ({ recordId: r.id, score: r.score }));
    return limit !== null && ordered.length > limit ? { hits, total: limit, totalIsLowerBound: true } : { hits, total: ordered.length };
  }

  /** Whether a query can be ranked ahead: a single plain word without a field. */
  private aheadWord(query: SearchQuery, words: { word: string; prefix: boolean }[]): string | null {
    return this.rankAhead && query.text!.field === null && words.length === 1 && !words[0]!.prefix ? words[0]!.word : null;
  }

  /**
   * The stored ranking ahead of a single plain word without a field, at the entry's version (else null); `looked`: read with
   * the entry's version in this call (entryLooked), not read again.
   */
  private async ahead(
    query: SearchQuery,
    entry: Matches,
    words: { word: string; prefix: boolean }[],
    looked = false,
  ): Promise<RankedAhead | null> {
    if (!this.rankAhead || this.aheadWord(query, words) === null) return null;
    if (!entry.ahead && !looked) {
      // Looked up again while missing: the ranking of this version may be in progress.
      const found = await this.rankAhead.lookup(query.datasetId, words[0]!.word);
      if (found?.version !== entry.version) return null;
      entry.ahead = found;
      this.account(entry);
    }
    return entry.ahead ?? null;
  }

  /** The cache entry of a key at the dataset's current text version (a moved version starts it over), with its records. */
  private async entry(datasetId: string, key: string): Promise<Matches> {
    const { version, records } = await textVersionRecords(this.db, datasetId);
    return this.current(key, version, records);
  }

  /**
   * The entry of a plain word's query (entry); when it lacks the word's ranking ahead, the stored ranking is read in the same
   * statement as the version (`looked`: one round trip less a new word).
   */
  private async entryLooked(
    query: SearchQuery,
    key: string,
    words: { word: string; prefix: boolean }[],
  ): Promise<{ entry: Matches; looked: boolean }> {
    const word = this.aheadWord(query, words);
    if (word === null || this.cache.get(key)?.ahead) return { entry: await this.entry(query.datasetId, key), looked: false };
    const { version, records, ahead } = await this.rankAhead!.lookupWithVersion(query.datasetId, word);
    const entry = this.current(key, version, records);
    if (!entry.ahead && ahead?.version === version) {
      entry.ahead = ahead;
      this.account(entry);
    }
    return { entry, looked: true };
  }

  /** The cache entry of a key at `version` (the dataset's current text version; a moved version starts it over). */
  private current(key: string, version: number, records: number | null): Matches {
    let entry = this.cache.get(key);
    if (entry) this.cache.delete(key);
    if (!entry || entry.version !== version) {
      if (entry) this.bytes -= entry.bytes;
      entry = { version, records, ranked: null, all: null, bytes: 0 };
    }
    this.cache.set(key, entry); // most recent last
    return entry;
  }

  /** Re-measures an entry after it grew and evicts the least recently used ones beyond the budget. */
  private account(entry: Matches): void {
    const bytes = (entry.ranked ? entry.ranked.seqs.length * 16 : 0) + (entry.all?.byteLength ?? 0) + (entry.ahead?.seqs.length ?? 0) * 8;
    this.bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    for (const [key, old] of this.cache) {
      if (this.bytes <= this.cacheBytes) break;
      if (old === entry) continue;
      this.cache.delete(key);
      this.bytes -= old.bytes;
    }
  }

  /**
   * The page: the best matches in order (score, then seq), the filters run on those records only; more
   * of the ranking while too few pass. The ranking is kept (at least RANKED_ROWS), so the next pages and
   * the next Submits read it instead of ranking every match again.
   */
  private async page(
    query: SearchQuery,
    entry: Matches,
    ranking: Ranking,
    /** Matches read and kept at least (RANKED_ROWS, or one window). */
    keep: number,
    /** A windowed order (windows()), whose growth is bounded. */
    windowed = false,
    /**
     * A count over the matches read (windowPassingSql: the rows' column `n`) run in the statement of the page's filters, and
     * where its result goes with the matches it counted (`of`).
     */
    along: { sql: (b: Builder, seqs: number[]) => string | null; counted: { of: number; n: number } } | null = null,
    /**
     * Records the filters surely fail, known from the windows' read (those before the first pending record, for the pending
     * queue): the leading ones of the order are not asked, the page's candidates start after them.
     */
    fails: (seq: number) => boolean = () => false,
    /** Only these records pass (ascending seqs), tested here; `query`'s filters run on those. */
    within?: Float64Array,
  ): Promise<{ recordId: string; score: number }[]> {
    const need = query.offset + query.limit;
    if (query.limit === 0) return [];
    let k = Math.max(64, Math.ceil(need * 3) + 32);
    /** Leading records of the order that surely fail. */
    let skipped = 0;
    for (;;) {
      const ranked = await this.ranked(entry, ranking, Math.max(k, keep));
      // No filters: the page's rows only (postgres-text-deep.ts).
      if (query.filters.length === 0 && !within && (ranked.complete || ranked.seqs.length >= need)) {
        const hits = await unfilteredPage(this.db, query, ranked);
        if (hits) return hits;
      }
      let lead = skipped;
      while (lead < ranked.seqs.length && fails(ranked.seqs[lead]!)) lead++;
      k += lead - skipped;
      skipped = lead;
      const candidates = ranked.seqs.slice(0, k);
      const asked = within ? candidates.slice(skipped).filter((seq) => sortedHas(within, seq)) : candidates.slice(skipped);
      const f = new Builder(query.userId);
      const where = [
        `r.seq = ANY(${f.p(`{${asked.join(",")}}`)}::bigint[])`,
        `r.dataset_id = ${f.p(query.datasetId)}`,
        ...query.filters.map((x) => f.filter(x)),
      ];
      const count = candidates.length > 0 && along ? along.sql(f, ranked.seqs) : null;
      const rows =
        candidates.length === 0 || (asked.length === 0 && !count)
          ? []
          : await queryRows<{ seq: number | string | null; id: string | null; n: number | string | null }>(
              this.db,
              `SELECT r.seq AS seq, r.id AS id${count ? ", NULL::bigint AS n" : ""} FROM records r WHERE ${where.join(" AND ")}${
                count ? ` UNION ALL SELECT NULL, NULL, w.n FROM (${count}) w` : ""
              }`,
              f.params,
            );
      const passing = rows.filter((r) => r.seq !== null);
      const counted = rows.find((r) => r.seq === null);
      if (along && counted) along.counted = { of: ranked.seqs.length, n: Number(counted.n ?? 0) };
      const idOf = new Map(passing.map((r) => [Number(r.seq), r.id!]));
      const seen = ranked.complete && candidates.length === ranked.seqs.length;
      if (seen || idOf.size >= need) {
        const hits: { recordId: string; score: number }[] = [];
        candidates.forEach((seq, i) => {
          const id = idOf.get(seq);
          if (id !== undefined) hits.push({ recordId: id, score: ranked.scores[i]! });
        });
        return hits.slice(query.offset, need);
      }
      // Grow by the observed pass rate (at least 4x); a windowed order at most to twice the windows read (below).
      const kept = Math.max(idOf.size, 1) / Math.max(candidates.length - skipped, 1);
      k = skipped + Math.max((k - skipped) * 4, Math.ceil((need / kept) * 1.5));
      // None passing in a window (the queue's head already submitted by the team: the first 3,468 records of the 1M bench
      // dataset) made the pass rate 1 in ~1,000 and the next read 15 windows: 15,000 matches with their heap rows, 14,867
      // blocks, 106-558 ms per phrase or prefix with 50 annotators working (the statement log), where the next window held them.
      if (windowed && k > ranked.seqs.length) k = Math.min(k, 2 * ranked.seqs.length);
    }
  }

  /** The entry's ranking, read again (further) while it holds fewer than `k` rows and more exist. */
  private async ranked(entry: Matches, ranking: Ranking, k: number): Promise<Ranked> {
    let ranked = entry.ranked;
    if (!ranked || (!ranked.complete && ranked.seqs.length < k)) {
      ranked = await ranking(k, ranked);
      entry.ranked = ranked;
      this.account(entry);
    }
    return ranked;
  }

  /**
   * A query other than one plain word over all fields (several words, a prefix, one field), ranked in
   * windows (windows()). Its bounded total comes from the windows read for the page, not from another
   * walk through the matches (which re-checked each record's fields: 10,001 records, 0.3-10 s at 1M):
   * when they hold every match, the records passing the filters among them (exact up to the bound);
   * otherwise the records passing among those read, as a lower bound (docs/api.md). Exact totals
   * (no bound) count in SQL.
   */
  private async windowedSearch(
    query: SearchQuery,
    key: string,
    matches: (b: Builder) => string,
    limit: number | null,
    /** The caller's answered records standing for the query's status filter (answeredSearch), tested in memory. */
    within?: Within,
  ): Promise<SearchResult> {
    const queue = queueFilters(query.filters);
    // Pending records only (the annotation page's queue): records before the first pending one fail, whoever asks.
    const pendingOnly = queue !== null && queue.statuses.length === 1 && queue.statuses[0] === "pending";
    // Its windows skip a completed head's whole windows (firstMatches skipHead): kept under a key of their own, which the
    // other filters' queries (the whole order) never read.
    const skipHead = pendingOnly && limit !== null;
    const own = skipHead ? `${key}\u0000pending` : key;
    // A query not cached: its entry's version is the one its first windows were read at (firstMatches), not a statement of its own.
    const entry: Matches =
      limit === null || this.cache.has(own)
        ? skipHead
          ? await this.pendingEntry(query.datasetId, own)
          : await this.entry(query.datasetId, own)
        : { version: Number.NaN, records: null, ranked: null, all: null, bytes: 0 };
    let pendingFrom: number | null = null;
    const ranking = async (k: number, previous: Ranked | null) => {
      const read = await this.windows(query, k, previous, pendingOnly, skipHead);
      if (Number.isNaN(entry.version)) this.adopt(own, entry, read.version);
      if (read.skipped > 0) entry.headFrom = read.pendingFrom!;
      if (pendingOnly) pendingFrom = read.pendingFrom;
      return read.ranked;
    };
    const counting = limit !== null && queue && !(queue.pending && query.userId === null) ? queue : null;
    // The queue's count over the windows read comes with the page's filters (one statement; again below if the page read more).
    const along = counting
      ? { sql: (b: Builder, seqs: number[]) => windowPassingSql(b, query, counting, seqs), counted: { of: -1, n: 0 } }
      : null;
    // The filters left to SQL: the status filter's records are `within`'s.
    const others = within ? { ...query, filters: query.filters.filter((f) => f !== within.status) } : query;
    if (within) this.answeredWindowed++;
    const hits = await this.page(
      others,
      entry,
      ranking,
      this.rankWindow,
      true,
      along,
      (seq) => pendingFrom !== null && seq < pendingFrom,
      within?.seqs,
    );
    if (limit === null) return { hits, total: await this.total(query, entry, matches) };
    // The windows the page read (at least the first, also for a page of 0).
    const ranked = await this.ranked(entry, ranking, this.rankWindow);
    let n = ranked.seqs.length;
    if (n > 0 && counting) n = along?.counted.of === n ? along.counted.n : await windowPassing(this.db, query, counting, ranked.seqs);
    else if (within && others.filters.length === 0) n = ranked.seqs.filter((seq) => sortedHas(within.seqs, seq)).length;
    else if (query.filters.length > 0 && n > 0) {
      const rows = onSearchRows(others.filters);
      const b = new Builder(query.userId, rows);
      const seqs = within ? ranked.seqs.filter((seq) => sortedHas(within.seqs, seq)) : ranked.seqs;
      const where = [
        `r.seq = ANY(${b.p(`{${seqs.join(",")}}`)}::bigint[])`,
        `r.dataset_id = ${b.p(query.datasetId)}`,
        ...others.filters.map((f) => b.filter(f)),
      ];
      const counted = await queryRows<{ n: number | string }>(
        this.db,
        `SELECT count(*) AS n FROM ${rows ? "record_search" : "records"} r WHERE ${where.join(" AND ")}`,
        b.params,
      );
      n = Number(counted[0]?.n ?? 0);
    }
    if (n > limit) return { hits, total: limit, totalIsLowerBound: true };
    return ranked.complete ? { hits, total: n } : { hits, total: n, totalIsLowerBound: true };
  }

  /**
   * At least `k` rows of the windowed order, whole windows: the dataset's matching records in seq
   * order (postgres-text-walk.ts), as many windows of `rankWindow` as hold `k` of them, each window by
   * score (best first) then seq; `complete` when no record matches beyond them. The whole windows of `previous`
   * are kept and the next ones read from their last record on (the page grows by the windows it lacks). The scores come with
   * the matches (firstMatches ranks the rows it reads; ranking while sorting every match of the GIN path
   * with its tsvector took a prefix in ~100K records 0.9M buffers and 2.6 s at 1M records).
   */
  private async windows(
    query: SearchQuery,
    k: number,
    previous: Ranked | null,
    /** The query keeps pending records only: the windows are read on to the first pending record (firstMatches pendingWindow). */
    pendingOnly = false,
    /** ... without the whole windows before it, only counted (firstMatches skipHead), when read from the dataset's first record. */
    skipHead = false,
  ): Promise<{ ranked: Ranked; version: number; pendingFrom: number | null; skipped: number }> {
    // Whole windows read before (fewer: they held every match) are kept, and the next ones read after their last record.
    const kept = previous && !previous.complete && previous.seqs.length % this.rankWindow === 0 ? previous : null;
    const before = kept?.seqs.length ?? 0;
    const {
      seqs: found,
      scores,
      version,
      asked,
      pendingFrom,
      skipped,
    } = await firstMatches(this.db, query, Math.ceil(Math.max(k - before, 1) / this.rankWindow) * this.rankWindow + 1, {
      buckets: await this.bucketIndex(),
      ...(await this.fieldWalk(query)),
      ...this.walkOptions,
      ...(kept && before > 0 ? { after: kept.seqs.reduce((a, b) => Math.max(a, b)) } : {}),
      ...(pendingOnly ? { pendingWindow: this.rankWindow, skipHead: skipHead && !(kept && before > 0) } : {}),
    });
    // Whole windows (more than asked when read on to the first pending record); the record after them only tells that more
    // match. Every match comes with its score (firstMatches).
    const read = asked - 1;
    const seqs = found.slice(0, read);
    const rows = seqs.map((seq, i) => ({ seq, score: scores.get(seq)!, win: Math.floor(i / this.rankWindow) }));
    rows.sort((x, y) => x.win - y.win || y.score - x.score || x.seq - y.seq);
    return {
      ranked: {
        seqs: [...(kept?.seqs ?? []), ...rows.map((r) => r.seq)],
        scores: [...(kept?.scores ?? []), ...rows.map((r) => r.score)],
        complete: found.length <= read,
      },
      version,
      pendingFrom,
      skipped,
    };
  }

  /**
   * The entry of the pending queue's windows (windowedSearch) at the dataset's current text version; started over when a record
   * before the first pending one its windows were read at (`headFrom`, whose windows were not read) is pending again.
   */
  private async pendingEntry(datasetId: string, key: string): Promise<Matches> {
    const b = new Builder(null);
    const dataset = b.p(datasetId);
    const row = (
      await queryRows<{ version: number | string; records: number | string; pending_from: number | string | null }>(
        this.db,
        `SELECT ${versionRecordsSql(dataset)}, ${firstWithStatusSql(dataset)} AS pending_from`,
        b.params,
      )
    )[0];
    const entry = this.current(key, Number(row?.version ?? 0), Number(row?.records ?? 0));
    const from = row?.pending_from == null ? null : Number(row.pending_from);
    if (entry.headFrom === undefined || from === null || from >= entry.headFrom) return entry;
    this.cache.delete(key);
    this.bytes -= entry.bytes;
    return this.current(key, entry.version, entry.records);
  }

  /** The walk's options of a search in one field (postgres-text-field.ts fieldWalk), with the field index's state. */
  private async fieldWalk(query: SearchQuery): Promise<ReturnType<typeof fieldWalk>> {
    return fieldWalk(query.text!.field, query.text!.field !== null && (await this.fieldIndex()));
  }

  /** A new entry (NaN version) takes the version its first matches were read at and the key's place in the cache. */
  private adopt(key: string, entry: Matches, version: number): void {
    entry.version = version;
    const old = this.cache.get(key);
    if (old) {
      this.cache.delete(key);
      this.bytes -= old.bytes;
    }
    this.cache.set(key, entry);
  }

  /**
   * The total. No filters: the number of matches. The queue's filters (response status pending for the
   * user, record status terms): the matches minus those the filters exclude, read as seqs (records of
   * the other statuses, records the user answered: few while a dataset is being annotated) and looked
   * up in the sorted matches. Other filters: counted in SQL (postgres-sql.ts textCount).
   */
  private async total(query: SearchQuery, entry: Matches, matches: (b: Builder) => string): Promise<number> {
    const queue = queueFilters(query.filters);
    if (!queue || (queue.pending && query.userId === null)) {
      const { sql, params } = textCount(query);
      return Number((await queryRows<{ n: number | string }>(this.db, sql, params))[0]?.n ?? 0);
    }
    if (!entry.all) {
      const b = new Builder(query.userId);
      const rows = await queryRows<{ seq: number | string }>(this.db, `SELECT m.seq FROM (${matches(b)}) m ORDER BY m.seq`, b.params);
      entry.all = Float64Array.from(rows, (r) => Number(r.seq));
      this.account(entry);
    }
    const all = entry.all;
    if (query.filters.length === 0) return all.length;
    const excluded = new Set<number>();
    const others = RECORD_STATUSES.filter((s) => !queue.statuses.includes(s));
    if (others.length > 0) {
      const b = new Builder(null);
      for (const r of await queryRows<{ seq: number | string }>(
        this.db,
        `SELECT seq FROM records WHERE dataset_id = ${b.p(query.datasetId)} AND status IN (${others.map((s) => b.p(s)).join(", ")})`,
        b.params,
      ))
        excluded.add(Number(r.seq));
    }
    if (queue.pending) {
      for (const r of await queryRows<{ seq: number | string }>(
        this.db,
        "SELECT r.seq FROM responses s JOIN records r ON r.id = s.record_id WHERE s.user_id = $1 AND r.dataset_id = $2",
        [query.userId, query.datasetId],
      ))
        excluded.add(Number(r.seq));
    }
    let out = 0;
    for (const seq of excluded) if (sortedHas(all, seq)) out++;
    return all.length - out;
  }
}

/**
 * The rows of a plain word's ranking to read when those kept do not reach `k`: ts_rank scores every match whatever the
 * LIMIT (the SDK's page at offset 2,560 of a new word at 1M records: 3.5 s p95), so a page past the kept rows without filters (the SDK iterating
 * `records(query=...)` by offset asks k = 3 x (offset + limit) + 32) reads 4 times what it needs, and any read 4 times the
 * rows kept: iterating a query's pages ranks every match a logarithmic number of times, not at each page (with filters
 * the page grows k by the pass rate itself).
 */
const rankingLimit = (k: number, previous: Ranked | null, unfiltered: boolean): number =>
  Math.max(k, unfiltered && k > RANKED_ROWS ? 4 * k : 0, previous && !previous.complete ? 4 * previous.seqs.length : 0);
