import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, queueFilters, RECORD_STATUSES, queryRows, textCount, textMatchSql, textVersion, textWords } from "./postgres-sql.js";
import { countLimit, type SearchQuery, type SearchResult } from "./search-port.js";
import type { PostgresRankAhead, RankedAhead } from "./postgres-rank-ahead.js";
import { pageAhead, totalAhead } from "./postgres-text-ahead.js";
import { ANSWERED_MAX, answeredStatuses } from "./answered-filter.js";

/** Best matches kept per cached query, at least (ts_rank scores every match whatever the limit). */
const RANKED_ROWS = 1024;
/** Memory budget of the cached match lists of all datasets (bytes); least recently used first out. */
const CACHE_BYTES = 64 * 1024 * 1024;
/**
 * Records per window of the order of a query other than one plain word over all fields (several
 * words, a prefix, one field), as on the embedded store (text-window.ts): the matching records in
 * record order, in windows of this many, each window by score. The same 10,000 as the embedded store's
 * first window, so that on both stores a query matching at most 10,000 records gets the plain score
 * order (docs/api.md). Finding them in seq order and ranking them reads each one's tsvectors
 * (`record_search`'s, then its fields': ~15-30 µs a record at 100K, load 20), so a query with more
 * matches costs one window's ranking, 0.15-0.3 s, instead of every match's.
 */
const RANK_WINDOW = 10_000;

/**
 * What a text query yields from `records_fts` alone, whoever asks: the best matches by score (a
 * prefix of the ranking, `complete` when that is all of them) and every matching seq (for totals).
 * The filters that depend on the user or on record state are applied to these at query time, so a
 * Submit does not invalidate them.
 */
interface Matches {
  version: number;
  ranked: { seqs: number[]; scores: number[]; complete: boolean } | null;
  /** Every matching seq, ascending. */
  all: Float64Array | null;
  /** The word's ranking ahead at this version (postgres-rank-ahead.ts), once found. */
  ahead?: RankedAhead;
  bytes: number;
}

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

  constructor(
    private readonly db: Kysely<DB>,
    private readonly cacheBytes = CACHE_BYTES,
    private readonly rankAhead: PostgresRankAhead | null = null,
    /** Records per window of the order of queries other than one plain word (RANK_WINDOW; tests set fewer). */
    private readonly rankWindow = RANK_WINDOW,
    /** `false`: no search from the caller's answered records (answeredSearch; tests compare both paths). */
    private readonly answeredPath = true,
  ) {}

  /** Searches answered from the caller's answered records (answeredSearch; tests, diagnostics). */
  answeredSearches = 0;

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
    if (answered) return answered;
    const entry = await this.entry(query.datasetId, `${query.datasetId}\u0000${text.field ?? ""}\u0000${JSON.stringify(words)}`);
    // The matches of the dataset, from records_fts (`b` adds the tsquery's and the dataset's parameters).
    const matches = (
      b: Builder,
    ) => `WITH q AS (SELECT ${b.tsQuery(words)} AS query) SELECT f.record_seq AS seq, max(ts_rank(f.tsv, q.query))::float8 AS score
      FROM records_fts f JOIN records r ON r.seq = f.record_seq, q WHERE f.tsv @@ q.query AND r.dataset_id = ${b.p(query.datasetId)}${text.field !== null ? ` AND f.field = ${b.p(text.field)}` : ""}
      GROUP BY f.record_seq`;
    const limit = countLimit(query);
    // One plain word ranked ahead (issue 31): its first pages and its bounded total without reading every match.
    const ahead = await this.ahead(query, entry, words);
    const ranking = (b: Builder, limit: number) =>
      windowed ? this.windows(b, query, limit) : `${matches(b)} ORDER BY score DESC, seq ASC LIMIT ${b.p(limit)}`;
    const page = async () =>
      (ahead ? await pageAhead(this.db, query, words[0]!.word, ahead) : null) ??
      (await this.page(query, entry, ranking, windowed ? this.rankWindow : RANKED_ROWS));
    const counted = async (): Promise<{ total: number; totalIsLowerBound?: true }> => {
      if (limit === null) return { total: await this.total(query, entry, matches) };
      const known = ahead ? await totalAhead(this.db, query, ahead, limit) : null;
      if (known) return known;
      // Bounded total: the first `limit + 1` passing records (SQL), not every match (postgres-sql.ts textCount).
      const { sql, params } = textCount(query, limit);
      const n = Number((await queryRows<{ n: number | string }>(this.db, sql, params))[0]?.n ?? 0);
      return n > limit ? { total: limit, totalIsLowerBound: true } : { total: n };
    };
    const [hits, total] = await Promise.all([page(), counted()]);
    return { hits, ...total };
  }

  /**
   * A search whose filters pass only records the caller answered (a response status filter without
   * `pending`: the Submitted, Discarded and Draft views), as on the embedded store
   * (sqlite-text-answered.ts): the other paths walk the text's matches in seq order through `records`
   * and `responses` to find the caller's few answered ones (the bounded total looks for 10,001 of
   * them: seconds at 100K records for a common word). Here: the caller's records with those statuses
   * (responses_user_record_idx; null, the other paths, when more than ANSWERED_MAX or no caller), the
   * query's filters and ts_rank on those only, in the order the other paths give: by window (the
   * window of each record among all the dataset's matches, as windows() numbers them, read up to the
   * last candidate only for a windowed query), score (best first), seq. The total is exact.
   */
  private async answeredSearch(
    query: SearchQuery,
    words: { word: string; prefix: boolean }[],
    windowed: boolean,
  ): Promise<SearchResult | null> {
    if (!this.answeredPath || query.userId === null) return null;
    const statuses = answeredStatuses(query.filters);
    if (!statuses) return null;
    const a = new Builder(null);
    const answered = await queryRows<{ seq: number | string }>(
      this.db,
      `SELECT r.seq AS seq FROM responses s JOIN records r ON r.id = s.record_id WHERE s.user_id = ${a.p(query.userId)}
        AND s.status IN (${statuses.map((v) => a.p(v)).join(", ")}) AND r.dataset_id = ${a.p(query.datasetId)} LIMIT ${a.p(ANSWERED_MAX + 1)}`,
      a.params,
    );
    if (answered.length > ANSWERED_MAX) return null;
    this.answeredSearches++;
    if (answered.length === 0) return { hits: [], total: 0 };
    const text = query.text!;
    const b = new Builder(query.userId);
    const seqs = b.p(`{${answered.map((r) => Number(r.seq)).join(",")}}`);
    const where = [`r.seq = ANY(${seqs}::bigint[])`, `r.dataset_id = ${b.p(query.datasetId)}`, ...query.filters.map((x) => b.filter(x))];
    const tsq = b.tsQuery(words);
    const field = text.field !== null ? ` AND f.field = ${b.p(text.field)}` : "";
    const rows = (
      await queryRows<{ seq: number | string; id: string; score: number }>(
        this.db,
        `WITH c AS (SELECT r.seq, r.id FROM records r WHERE ${where.join(" AND ")}), q AS (SELECT ${tsq} AS query)
        SELECT c.seq AS seq, c.id AS id, max(ts_rank(f.tsv, q.query))::float8 AS score FROM c JOIN records_fts f ON f.record_seq = c.seq, q
        WHERE f.tsv @@ q.query${field} GROUP BY c.seq, c.id`,
        b.params,
      )
    ).map((r) => ({ seq: Number(r.seq), id: r.id, score: r.score }));
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
    const limit = countLimit(query);
    return limit !== null && ordered.length > limit ? { hits, total: limit, totalIsLowerBound: true } : { hits, total: ordered.length };
  }

  /** The stored ranking ahead of a single plain word without a field, at the entry's version (else null). */
  private async ahead(query: SearchQuery, entry: Matches, words: { word: string; prefix: boolean }[]): Promise<RankedAhead | null> {
    if (!this.rankAhead || query.text!.field !== null || words.length !== 1 || words[0]!.prefix) return null;
    if (!entry.ahead) {
      // Looked up again while missing: the ranking of this version may be in progress.
      const found = await this.rankAhead.lookup(query.datasetId, words[0]!.word);
      if (found?.version !== entry.version) return null;
      entry.ahead = found;
      this.account(entry);
    }
    return entry.ahead;
  }

  /** The cache entry of a key at the dataset's current text version (a moved version starts it over). */
  private async entry(datasetId: string, key: string): Promise<Matches> {
    const version = await textVersion(this.db, datasetId);
    let entry = this.cache.get(key);
    if (entry) this.cache.delete(key);
    if (!entry || entry.version !== version) {
      if (entry) this.bytes -= entry.bytes;
      entry = { version, ranked: null, all: null, bytes: 0 };
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
    /** The SQL of the first `limit` (seq, score) of the order. */
    ranking: (b: Builder, limit: number) => string,
    /** Matches read and kept at least (RANKED_ROWS, or one window). */
    keep: number,
  ): Promise<{ recordId: string; score: number }[]> {
    const need = query.offset + query.limit;
    if (query.limit === 0) return [];
    let k = Math.max(64, Math.ceil(need * 3) + 32);
    for (;;) {
      let ranked = entry.ranked;
      if (!ranked || (!ranked.complete && ranked.seqs.length < k)) {
        const b = new Builder(query.userId);
        const limit = Math.max(k, keep);
        const rows = await queryRows<{ seq: number | string; score: number }>(this.db, ranking(b, limit), b.params);
        ranked = { seqs: rows.map((r) => Number(r.seq)), scores: rows.map((r) => r.score), complete: rows.length < limit };
        entry.ranked = ranked;
        this.account(entry);
      }
      const candidates = ranked.seqs.slice(0, k);
      const f = new Builder(query.userId);
      const where = [
        `r.seq = ANY(${f.p(`{${candidates.join(",")}}`)}::bigint[])`,
        `r.dataset_id = ${f.p(query.datasetId)}`,
        ...query.filters.map((x) => f.filter(x)),
      ];
      const passing =
        candidates.length === 0
          ? []
          : await queryRows<{ seq: number | string; id: string }>(
              this.db,
              `SELECT r.seq AS seq, r.id AS id FROM records r WHERE ${where.join(" AND ")}`,
              f.params,
            );
      const idOf = new Map(passing.map((r) => [Number(r.seq), r.id]));
      const seen = ranked.complete && candidates.length === ranked.seqs.length;
      if (seen || idOf.size >= need) {
        const hits: { recordId: string; score: number }[] = [];
        candidates.forEach((seq, i) => {
          const id = idOf.get(seq);
          if (id !== undefined) hits.push({ recordId: id, score: ranked.scores[i]! });
        });
        return hits.slice(query.offset, need);
      }
      // Grow by the observed pass rate (at least 4x).
      const kept = Math.max(idOf.size, 1) / Math.max(candidates.length, 1);
      k = Math.max(k * 4, Math.ceil((need / kept) * 1.5));
    }
  }

  /**
   * The first `limit` (seq, score) of the windowed order: the dataset's matching records in seq order
   * (record_search's words, checked in the fields when several words must share one or a field is
   * asked: postgres-sql.ts textMatchSql), as many whole windows as hold `limit` of them, ts_rank of
   * those only, then by window, score (best first) and seq.
   */
  private windows(b: Builder, query: SearchQuery, limit: number): string {
    const text = query.text!;
    const match = textMatchSql(b, { ...query, filters: [] }, true);
    const read = Math.ceil(limit / this.rankWindow) * this.rankWindow;
    const tsq = b.tsQuery(textWords(text.q));
    const field = text.field !== null ? ` AND f.field = ${b.p(text.field)}` : "";
    return `WITH s AS (SELECT r.seq FROM ${match.from} WHERE ${match.where.join(" AND ")} ORDER BY r.seq LIMIT ${b.p(read)}),
      q AS (SELECT ${tsq} AS query),
      m AS (SELECT f.record_seq AS seq, max(ts_rank(f.tsv, q.query))::float8 AS score FROM s JOIN records_fts f ON f.record_seq = s.seq, q
        WHERE f.tsv @@ q.query${field} GROUP BY f.record_seq),
      w AS (SELECT seq, score, (row_number() OVER (ORDER BY seq) - 1) / ${b.p(this.rankWindow)} AS win FROM m)
      SELECT seq, score FROM w ORDER BY win, score DESC, seq ASC LIMIT ${b.p(limit)}`;
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
    for (const seq of excluded) if (contains(all, seq)) out++;
    return all.length - out;
  }
}

/** Binary search in ascending seqs. */
function contains(sorted: Float64Array, value: number): boolean {
  let lo = 0,
    hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid]!;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
