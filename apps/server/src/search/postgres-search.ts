import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { unprocessable } from "../http/errors.js";
import { recordCountWithStatus } from "../records/counts.js";
import { countLimit, filterCountLimit, type SearchPort, type SearchQuery, type SearchResult } from "./search-port.js";
import { answeredCount, answeredOnly, filterCount, filterTotal } from "./postgres-filter-total.js";
import { answeredPage, answeredWalkable } from "./postgres-answered-page.js";
import { answeredStatusTotal } from "./postgres-answered-total.js";
import { Builder, firstPassingSeqSql, json, keptStatuses, queueFilters, queryRows, textCount, textWords } from "./postgres-sql.js";
import { PostgresTextBuckets } from "./postgres-text-buckets.js";
import { textFieldIndex } from "./postgres-text-field.js";
import { PostgresBackgroundIndex } from "./postgres-background-index.js";
import { WORDS_TERMS_INDEX_SPEC } from "../db/migrations/postgres/0031-record-search-words-terms.js";
import { PostgresTextVocabulary } from "./postgres-text-vocabulary.js";
import { PostgresTextHeadIndex } from "./postgres-text-head-index.js";
import { PostgresText } from "./postgres-text.js";
import { PostgresRankAhead } from "./postgres-rank-ahead.js";
import { boundedVectors, halfvecExpression, PostgresVectorIndexes } from "./postgres-vector-index.js";
import { candidatesFirst, textCondition, textMaxProbes } from "./postgres-vector-text.js";
import { pageScores, sortedPage, walkable } from "./postgres-sorted.js";
import { SORT_INDEX_SPECS } from "../db/migrations/postgres/0036-sort-indexes.js";
import { PostgresMetadataSortIndexes } from "./postgres-metadata-sort.js";

/** Candidates beyond the page a search through the halfvec index takes, re-sorted by their exact distance. */
const HALFVEC_EXTRA = 10;

export interface PostgresSearchOptions {
  /** pgvector is installed (else similarity answers 422 with the reason). */
  vectorSearch: boolean;
  /** false: text in score order runs the plain SQL below too, without the cached matches of postgres-text.ts (tests compare both). */
  textCache?: boolean;
  /** Options of the frequent words ranked ahead (postgres-rank-ahead.ts); false: none are used. */
  rankAhead?: ConstructorParameters<typeof PostgresRankAhead>[1] | false;
  /**
   * `hnsw.ef_search` of similarity searches through an HNSW index an earlier version left (default 1,000,
   * see search). PostgreSQL's planner prices an index scan by it: over a few thousand vectors it scans
   * them all instead (exact, cheap), so tests of the index's plans at that size pass 100.
   */
  efSearch?: number;
  /** Options of the datasets' vocabularies that prefixes read as their words (postgres-text-vocabulary.ts); false: none. */
  textVocabulary?: ConstructorParameters<typeof PostgresTextVocabulary>[1] | false;
  /** Options of the completed heads' text in memory (postgres-text-head-index.ts); false: none. */
  headIndex?: ConstructorParameters<typeof PostgresTextHeadIndex>[1] | false;
  /** The IVFFlat lists a similarity search probes, both orders (default: nearSideProbes / farSideProbes of the index's lists); tests pass 1. */
  probes?: number;
  /** Options of the walk of a sort's index (postgres-sorted.ts); false: sorted searches run the plain SQL below (tests compare both). */
  sortedWalk?: Parameters<typeof sortedPage>[2] | false;
  /** The vectors a similarity search scans while its settings has no valid index (default FALLBACK_VECTORS: postgres-vector-index.ts). */
  fallbackVectors?: number;
}

/**
 * PostgreSQL adapter of the search port, with the semantics of the SQLite adapter:
 * - text: `records_fts` (one tsvector per text field, GIN index, `tessera_search` configuration); every
 *   word is required within one field, `word*` is a prefix; the score is the best field's ts_rank. In
 *   score order through the cached matches of postgres-text.ts; sorted by other values here.
 * - similarity: pgvector's cosine distance `<=>` on `record_vectors.vector::vector(n)`, served by a
 *   partial IVFFlat index per vector settings in both orders once it is valid (most similar probing
 *   the lists nearest the query, least similar those nearest its negation; built in the background:
 *   postgres-vector-index.ts), else an exact scan of a bounded share of its vectors (boundedVectors).
 * - filters and sorts on jsonb: a list value matches when any item matches (like SQLite's json_each);
 *   metadata terms use containment (`@>`), which the GIN index on `records.metadata` serves.
 */
export class PostgresSearch implements SearchPort {
  private iterative: Promise<boolean> | null = null;
  private readonly text: PostgresText;
  /** The frequent words ranked ahead (issue 31); the server starts its background ranking (server.ts). */
  readonly rankAhead: PostgresRankAhead | null;
  /** The IVFFlat indexes, built in the background once the vectors' writes pause (the server starts the job: server.ts). */
  readonly vectorIndexes: PostgresVectorIndexes;
  /** `records_fts`'s bucket index of an upgraded database, built in the background (the server starts the job: server.ts). */
  readonly textBuckets: PostgresTextBuckets;
  /** `record_search`'s index of words and metadata terms on an upgraded database (migration 0031), built after the bucket index. */
  readonly wordsTerms: PostgresBackgroundIndex;
  /** The datasets' vocabularies for prefixes, read in the background (the server starts the job: server.ts). */
  readonly textVocabulary: PostgresTextVocabulary | null;
  /** The completed heads' text in memory, read in the background (the server starts the job: server.ts). */
  readonly headIndex: PostgresTextHeadIndex | null;
  /** Sorted pages by how they were found (postgres-sorted.ts; tests). */
  readonly sortedPaths = { walk: 0, gathered: 0, ties: 0, plain: 0 };
  /** The caller's Submitted pages by how they were found (postgres-answered-page.ts; tests). */
  readonly answeredPaths = { walk: 0, plain: 0 };
  /** Migration 0036's indexes in the order of the sorts on an upgraded database, built one after the other after 0031's. */
  readonly sortIndexes: PostgresBackgroundIndex[];
  /** The indexes of records in each metadata property's order, built after 0036's (postgres-metadata-sort.ts; the server starts the job). */
  readonly metadataSorts: PostgresMetadataSortIndexes;
  /** `records_fts`'s index with the fields' names on an upgraded database (migration 0037), built after 0036's (postgres-text-field.ts). */
  readonly textField: PostgresBackgroundIndex;
  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: PostgresSearchOptions,
  ) {
    this.rankAhead = options.rankAhead === false ? null : new PostgresRankAhead(db, options.rankAhead ?? {});
    this.textBuckets = new PostgresTextBuckets(db);
    this.textVocabulary = options.textVocabulary === false ? null : new PostgresTextVocabulary(db, options.textVocabulary ?? {});
    this.headIndex = options.headIndex === false ? null : new PostgresTextHeadIndex(db, options.headIndex ?? {});
    this.wordsTerms = new PostgresBackgroundIndex(db, WORDS_TERMS_INDEX_SPEC, { after: () => this.textBuckets.ready() });
    this.sortIndexes = [];
    for (const spec of SORT_INDEX_SPECS) {
      const before = this.sortIndexes.at(-1) ?? this.wordsTerms;
      this.sortIndexes.push(new PostgresBackgroundIndex(db, spec, { after: () => before.ready() }));
    }
    const last = this.sortIndexes.at(-1)!;
    this.textField = textFieldIndex(db, () => last.ready());
    this.text = new PostgresText(
      db,
      undefined,
      this.rankAhead,
      undefined,
      undefined,
      { vocabulary: this.textVocabulary, headIndex: this.headIndex },
      () => this.textBuckets.ready(),
      () => this.wordsTerms.ready(),
      undefined,
      () => this.textField.ready(),
    );
    this.vectorIndexes = new PostgresVectorIndexes(db);
    this.metadataSorts = new PostgresMetadataSortIndexes(db, { after: () => last.ready() });
  }

  /** Builds the partial IVFFlat index of one vector settings unless it is valid (idempotent, safe between replicas; postgres-vector-index.ts). */
  ensureVectorIndex(settingsId: string, dimensions: number): Promise<void> {
    return this.vectorIndexes.build(settingsId, dimensions);
  }

  /**
   * pgvector 0.8+ can go on scanning the HNSW index past `ef_search` candidates until LIMIT rows pass
   * the query's conditions (`hnsw.iterative_scan`). Without it a similarity search for 1,000 records
   * from a record (the SDK's deepest page) can find 999: the 1,000 candidates include the reference
   * record, which the query leaves out; filters lose candidates the same way.
   */
  private iterativeScan(): Promise<boolean> {
    this.iterative ??= sql<{ v: string | null }>`select extversion as v from pg_extension where extname = 'vector'`
      .execute(this.db)
      .then((r) => {
        const [major, minor] = (r.rows[0]?.v ?? "0.0").split(".").map(Number);
        return (major ?? 0) > 0 || (minor ?? 0) >= 8;
      })
      .catch(() => false);
    return this.iterative;
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    // Text in score order: the cached matches (postgres-text.ts).
    if (query.text && !query.vector && query.sort.length === 0 && this.options.textCache !== false) return this.text.search(query);
    // One sort with an index in its order: the records in that order until the page is full (postgres-sorted.ts).
    let sortedTotal: Promise<{ total: number; totalIsLowerBound?: boolean }> | null = null;
    const sort = query.sort.length === 1 && !query.vector ? query.sort[0]!.scope : null;
    const metadataIndexed =
      sort?.entity === "metadata" && this.options.sortedWalk !== false && (await this.metadataSorts.ready(query.datasetId, sort.name));
    if (this.options.sortedWalk !== false && walkable(query, metadataIndexed) && !(query.text && textWords(query.text.q).length === 0)) {
      sortedTotal = this.sortedTotal(query);
      const page = await sortedPage(this.db, query, { ...this.options.sortedWalk, metadataIndexed }).catch(async (e: unknown) => {
        await sortedTotal!.catch(() => undefined);
        throw e;
      });
      this.sortedPaths[page?.path ?? "plain"]++;
      if (page) return this.sortedResult(query, page.rows, sortedTotal);
    }
    // The caller's Submitted list: the records in seq order up to the page (postgres-answered-page.ts), its total meanwhile.
    let answeredTotal: Promise<{ total: number; totalIsLowerBound?: true }> | null = null;
    if (answeredWalkable(query)) {
      answeredTotal = query.hitsOnly ? null : this.total(query, filterCountLimit(query, null));
      const page = await answeredPage(this.db, query).catch(async (e: unknown) => {
        await answeredTotal?.catch(() => undefined);
        throw e;
      });
      this.answeredPaths[page ? "walk" : "plain"]++;
      if (page) {
        const hits = page.map((r) => ({ recordId: r.id, score: null }));
        const total = await answeredTotal;
        return total ? { hits, ...total } : { hits, total: hits.length };
      }
    }
    const b = new Builder(query.userId);
    const ctes: string[] = [];
    let from = "records r";
    let score = "NULL::float8";
    // Similarity with text through the IVFFlat index: the text is a condition on each candidate (postgres-vector-text.ts).
    const ivf =
      query.vector && query.text && this.options.vectorSearch
        ? await this.vectorIndexes.farSide(query.vector.settingsId, query.vector.value.length)
        : null;
    let textFilter: string | null = null;
    if (query.text && ivf) {
      textFilter = textCondition(b, query.text);
      if (textFilter === null) return { hits: [], total: 0 };
    } else if (query.text) {
      const words = textWords(query.text.q);
      if (words.length === 0) return { hits: [], total: 0 };
      const fieldClause = query.text.field !== null ? ` AND f.field = ${b.p(query.text.field)}` : "";
      ctes.push(`q AS (SELECT ${b.tsQuery(words)} AS query)`);
      ctes.push(
        `t AS (SELECT f.record_seq AS seq, max(ts_rank(f.tsv, q.query)) AS rank FROM records_fts f, q WHERE f.tsv @@ q.query${fieldClause} GROUP BY f.record_seq)`,
      );
      from += " JOIN t ON t.seq = r.seq";
      score = "t.rank::float8";
    }
    let dimensions = 0;
    let nearest = "";
    let far: { probes: number; operator: "<#>" | "<->"; lists: number } | null = null;
    const least = query.vector?.order === "least_similar";
    if (query.vector) {
      if (!this.options.vectorSearch) {
        throw unprocessable(
          "Vector similarity search needs the PostgreSQL extension pgvector, which this database does not have (see docs/deployment.md)",
        );
      }
      dimensions = query.vector.value.length;
      // The index is built in the background (postgres-vector-index.ts). Least similar is most similar to the
      // negated vector (cosine distance to -q is 2 minus the distance to q): ORDER BY distance DESC scanned
      // every vector of the settings (seconds at 1M).
      const reference = b.p(json(least ? query.vector.value.map((x) => -x) : query.vector.value));
      score = `(v.vector::vector(${dimensions}) <=> ${reference}::vector(${dimensions}))`;
      // The indexes order by their own expression (the unit vectors at half precision); the page is then
      // sorted by the exact distance (score). Both orders through the settings' IVFFlat index (the "far
      // side") when it is valid: the negative inner product (`<#>`) or L2 (`<->`, earlier versions' index)
      // between unit vectors, the operator of that index, orders as cosine; most similar probes the lists
      // nearest the query (nearSideProbes), least similar those nearest the negated query (farSideProbes).
      const index = ivf ?? (await this.vectorIndexes.farSide(query.vector.settingsId, dimensions));
      far = index && {
        probes: Math.max(1, Math.round(this.options.probes ?? (least ? index.probes : index.nearProbes))),
        operator: index.operator,
        lists: index.lists,
      };
      // Without it an HNSW index an earlier version left (until the job drops it), else the bounded scan (boundedVectors).
      const legacy = far ? null : await this.vectorIndexes.usable(query.vector.settingsId, dimensions);
      if (far || legacy === "halfvec")
        nearest = `${halfvecExpression("v.vector", dimensions)} ${far ? far.operator : "<=>"} l2_normalize(${reference}::vector(${dimensions}))::halfvec(${dimensions})`;
      const vectors = far || legacy ? "record_vectors" : boundedVectors(b.p(query.vector.settingsId), this.options.fallbackVectors);
      from += ` JOIN ${vectors} v ON v.record_id = r.id AND v.vector_settings_id = ${b.p(query.vector.settingsId)}`;
    }
    const dataset = b.p(query.datasetId);
    const where = [`r.dataset_id = ${dataset}`];
    // Records before the first of the one status the filters keep fail them: the page in seq order starts there (1M bench
    // records, a completed head of 15,695 records: the metadata filter's page read 11,903 buffers of `records`, 56 ms; 0.7 ms).
    if (!query.vector && keptStatuses(query.filters).length === 1) where.push(`r.seq >= ${firstPassingSeqSql(b, query.filters, dataset)}`);
    if (query.vector?.excludeRecordId) where.push(`r.id <> ${b.p(query.vector.excludeRecordId)}`);
    for (const f of query.filters) where.push(b.filter(f));
    if (textFilter) where.push(textFilter);
    const base = `${ctes.length ? `WITH ${ctes.join(", ")} ` : ""}SELECT r.id AS id, r.seq AS seq, ${score} AS score FROM ${from} WHERE ${where.join(" AND ")}`;
    // Without text, a bounded count (a metadata filter) stops after the filter bound's first passing records
    // (TESSERA_FILTER_TOTAL_BOUND, postgres-filter-total.ts): at 1M records an exact count of a ~10% metadata
    // filter read ~200K wide rows (1.6 s; 0.25 s up to 10,001).
    const limit = query.text ? countLimit(query) : filterCountLimit(query, null);

    if (query.vector) {
      // Through a halfvec index: a few more candidates than the page, whose exact distances decide
      // the page (at half precision neighbours about as similar can swap places).
      // With text: the index's candidates only when the text matches many records, else (or when they did not fill
      // the page) every match ranked exactly (postgres-vector-text.ts).
      const maxProbes = far ? (textFilter ? textMaxProbes(far.probes, far.lists) : far.lists) : 0;
      // The limits inline (validated integers): both statements take the same parameters, and one PostgreSQL
      // cannot type (unused) fails the statement.
      const pageLimit = Math.max(0, Math.floor(query.limit));
      const exactSql = `${base} ORDER BY score, r.seq LIMIT ${pageLimit}`;
      const indexed =
        Boolean(nearest) &&
        (!textFilter || (await candidatesFirst(this.db, query, { lists: far!.lists, maxProbes, candidates: query.limit + HALFVEC_EXTRA })));
      const pageSql = indexed
        ? `SELECT id, score FROM (${base} ORDER BY ${nearest} LIMIT ${pageLimit + HALFVEC_EXTRA}) AS near ORDER BY score, seq LIMIT ${pageLimit}`
        : exactSql;
      // An earlier version's HNSW index (only while no IVFFlat index is valid): pgvector's largest ef_search for both orders. Recall@50 at 1M bench records (halfvec index,
      // m 16, ef_construction 64; docs/performance.md): most similar 0.805 at ef_search 100 (3 of 20
      // queries found 0-1 of the 50: the search stuck in a neighbouring cluster), 0.907 at 400 (min
      // 0.08), 0.956 at 1,000 (min 0.86), for ~7 ms more of PostgreSQL's CPU than at 100. The far side
      // is flat (many records about as dissimilar): least similar through this index 0.12-0.18 at 1,000
      // (the 50th found is 0.03 more similar than the exact 50th, all below 0), hence its own index (far).
      const efSearch = Math.max(1, Math.min(1000, Math.round(this.options.efSearch ?? 1000)));
      const iterative = await this.iterativeScan();
      // The settings for the session of one pooled connection, then the page on it: two statements where a
      // transaction with local settings took four (BEGIN and COMMIT: ~0.3 ms of Node's CPU per call at 1M).
      // Only similarity searches scan the vector indexes, and each sets every setting it depends on first.
      const rows = await this.db.connection().execute(async (conn) => {
        // The IVFFlat index probes a share of its lists; with filters, pgvector 0.8 goes on to further
        // lists until the page is full (relaxed order: the page is sorted by its exact scores).
        const settings = far
          ? `set_config('ivfflat.probes', '${far.probes}', false)${iterative ? `, set_config('ivfflat.iterative_scan', 'relaxed_order', false), set_config('ivfflat.max_probes', '${maxProbes}', false)` : ""}`
          : `set_config('hnsw.ef_search', '${efSearch}', false)${iterative ? ", set_config('hnsw.iterative_scan', 'strict_order', false)" : ""}`;
        await sql.raw(`SELECT ${settings}`).execute(conn);
        const page = await queryRows<{ id: string; score: number }>(conn, pageSql, b.params);
        return indexed && textFilter && page.length < query.limit
          ? queryRows<{ id: string; score: number }>(conn, exactSql, b.params)
          : page;
      });
      // Cosine similarity in [-1, 1] as the query score (1 = same direction): 1 - d(x, q), or d(x, -q) - 1.
      return { hits: rows.map((r) => ({ recordId: r.id, score: least ? r.score - 1 : 1 - r.score })), total: rows.length };
    }

    const order: string[] = [];
    for (const s of query.sort) {
      // Missing values last in both directions.
      order.push(`${b.sortExpr(s.scope)} ${s.order === "desc" ? "DESC" : "ASC"} NULLS LAST`);
    }
    if (query.sort.length === 0 && query.text) order.push("score DESC");
    order.push("r.seq ASC");
    const pageSql = `${base} ORDER BY ${order.join(", ")} LIMIT ${b.p(query.limit)} OFFSET ${b.p(query.offset)}`;
    const [rows, total] = await Promise.all([
      queryRows<{ id: string; score: number | null }>(this.db, pageSql, b.params),
      sortedTotal ?? answeredTotal ?? (query.hitsOnly ? null : this.total(query, limit)),
    ]);
    const hits = rows.map((r) => ({ recordId: r.id, score: r.score }));
    if (!total) return { hits, total: hits.length };
    return sortedTotal ? boundedAsShown(hits, query, total) : { hits, ...total };
  }

  /**
   * The total of a sorted query whose page the sort's walk reads (postgres-sorted.ts): the total the query has in
   * any order, with text the score order's (postgres-text.ts, bounded as that counts it), else the plain query's.
   */
  private sortedTotal(query: SearchQuery): Promise<{ total: number; totalIsLowerBound?: boolean }> {
    return query.text
      ? this.text.search({ ...query, sort: [], offset: query.offset + query.limit, limit: 0 })
      : this.total(query, filterCountLimit(query, null));
  }

  /** The walk's page with the text scores of its records and the query's total (sortedTotal). */
  private async sortedResult(
    query: SearchQuery,
    page: { id: string; seq: number }[],
    total: Promise<{ total: number; totalIsLowerBound?: boolean }>,
  ): Promise<SearchResult> {
    const [scores, counted] = await Promise.all([
      pageScores(
        this.db,
        query,
        page.map((r) => r.seq),
      ),
      total,
    ]);
    const hits = page.map((r) => ({ recordId: r.id, score: query.text ? (scores.get(r.seq) ?? null) : null }));
    return boundedAsShown(hits, query, counted);
  }

  /** The total of a query without vector (and of text in another order than the score's), exact up to `limit`. */
  private async total(query: SearchQuery, limit: number | null): Promise<{ total: number; totalIsLowerBound?: true }> {
    // The caller's answered records of some statuses and nothing else: their response counters (postgres-answered-total.ts).
    const answered = await answeredStatusTotal(this.db, query, limit);
    if (answered) return answered;
    if (!query.text && limit !== null) {
      const { path: _, ...total } = await filterTotal(this.db, query, limit);
      return total;
    }
    // The caller's answered records, exact (the Submitted list's total): from their responses (postgres-filter-total.ts).
    const count = query.text
      ? textCount(query, limit)
      : query.userId !== null && query.filters.some(answeredOnly)
        ? answeredCount(query, limit)
        : filterCount(query, limit);
    const n = (await this.queueTotal(query)) ?? Number((await queryRows<{ n: number }>(this.db, count.sql, count.params))[0]?.n ?? 0);
    return limit !== null && n > limit ? { total: limit, totalIsLowerBound: true } : { total: n };
  }

  /**
   * The total of no filter or record status terms only (no text or vector): the dataset's record counters
   * (migration 0011). The annotator's queue total (`/me`, response status pending, otherwise only record status terms,
   * no text or vector): the dataset's record counters minus the user's answered
   * records of those statuses. The same number as the NOT EXISTS count, which visits every record
   * of the dataset.
   */
  private async queueTotal(query: SearchQuery): Promise<number | null> {
    if (query.text || query.vector) return null;
    const queue = queueFilters(query.filters);
    if (!queue) return null;
    // No filter or record statuses only (the admin's sorted lists): the counters; counting 1M records took ~250 ms.
    if (!queue.pending) return recordCountWithStatus(this.db, query.datasetId, queue.statuses);
    if (query.userId === null) return null;
    const statuses = queue.statuses;
    if (statuses.length === 0) return 0;
    const answered = await sql<{ n: number }>`select count(*) as n from responses s join records r on r.id = s.record_id
      where s.user_id = ${query.userId} and r.dataset_id = ${query.datasetId} and r.status in (${sql.join(statuses)})`.execute(this.db);
    return (await recordCountWithStatus(this.db, query.datasetId, statuses)) - Number(answered.rows[0]?.n ?? 0);
  }
}

/**
 * As the score order's total (postgres-text.ts): a lower bound is at least the records up to the page shown, and
 * exact when the page is not full.
 */
function boundedAsShown(
  hits: SearchResult["hits"],
  query: SearchQuery,
  counted: { total: number; totalIsLowerBound?: boolean },
): SearchResult {
  if (!counted.totalIsLowerBound) return { hits, total: counted.total };
  if (hits.length < query.limit && (hits.length > 0 || query.offset === 0)) return { hits, total: query.offset + hits.length };
  return { hits, total: hits.length > 0 ? Math.max(counted.total, query.offset + hits.length) : counted.total, totalIsLowerBound: true };
}
