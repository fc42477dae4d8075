import { CompiledQuery, type Kysely } from "kysely";
import { rawSqliteOf } from "../db/database.js";
import type { DB } from "../db/schema.js";
import { metadataRowsOf } from "../db/migrations/0009-record-metadata-index.js";
import { recordCountWithStatus } from "../records/counts.js";
import { encodeVector } from "../records/read.js";
import { filterCountLimit, isQueueFilter, type SearchPort, type SearchQuery, type SearchResult } from "./search-port.js";
import { type KnnOptions, SqliteKnn } from "./sqlite-knn.js";
import { searchOffOf, searchOffOptions } from "./search-off.js";
import { SqliteMetadata } from "./sqlite-metadata.js";
import { Builder, ftsExpression, orderTerms, type Param, RECORD_STATUSES, SqliteQueries, splitPending } from "./sqlite-sql.js";
import { SqliteCandidates } from "./sqlite-candidates.js";
import { SuggestionKeys } from "./sqlite-sort-keys.js";
import { recordStatusesOf } from "./sqlite-status.js";
import { SqliteText } from "./sqlite-text.js";
import { answeredStatuses } from "./answered-filter.js";
import { answeredSetsOf } from "./sqlite-answered.js";
import { responseTalliesOf } from "./sqlite-response-tallies.js";
import { textIndexFor } from "./text-index.js";

/**
 * SQLite adapter of the search port: FTS5 (`records_fts`, one row per text field, rowid = seq*1024+i,
 * written by the deferred indexer of text-index.ts) for text, with a cache of the user-independent
 * part (sqlite-text.ts); similarity by exact cosine over `record_vectors` below 20,000 vectors per
 * setting, above it from in-memory binary codes rescored exactly (sqlite-knn.ts); metadata filters
 * with their count from in-memory columns (sqlite-metadata.ts) or the `record_metadata` index
 * (migration 0009); JSON1 for response / suggestion filters; queue totals from the per-dataset
 * counters (records/counts.ts). Queries run through Kysely's connection so they never interleave with
 * another request's transaction.
 */
export class SqliteSearch extends SqliteQueries implements SearchPort {
  private readonly knn: SqliteKnn;
  private readonly text: SqliteText;
  private readonly metadata: SqliteMetadata;
  private readonly suggestionKeys: SuggestionKeys;
  private readonly candidates: SqliteCandidates;

  /**
   * `fewMatches`, `offThread`, `answered`, `cacheBytes`, `frequentRows`: see SqliteText; `metadataColumns: false` keeps metadata
   * filters in SQL (tests compare both); `candidates: false`: no search starts from candidates (sqlite-candidates.ts,
   * tests compare both; with text, `textSorts: false`: no sorted page walked in the sort's order, sqlite-text-sorted.ts); `knn`: SqliteKnn's options. `TESSERA_SEARCH_OFF` sets some (search-off.ts).
   */
  constructor(
    db: Kysely<DB>,
    private readonly options: {
      fewMatches?: number;
      metadataColumns?: boolean;
      offThread?: boolean;
      answered?: boolean;
      cacheBytes?: number;
      frequentRows?: number;
      knn?: KnnOptions;
      candidates?: boolean;
      textSorts?: boolean;
      sortWalkMax?: number;
    } = {},
  ) {
    super(db);
    this.knn = new SqliteKnn(db, options.knn);
    this.text = new SqliteText(db, options);
    this.metadata = new SqliteMetadata(db);
    this.suggestionKeys = new SuggestionKeys(db);
    this.candidates = new SqliteCandidates(db, this.metadata, this.suggestionKeys);
  }

  /** The similarity codes of a vector setting loaded ahead of its first search (search/warm-up.ts). */
  async warmVectors(settingsId: string): Promise<void> {
    await this.knn.warm(settingsId);
  }

  /** Resolves once the setting's similarity index is built as its codes call for (SqliteKnn.indexSettled). */
  async similarityIndexSettled(settingsId: string): Promise<void> {
    await this.knn.indexSettled(settingsId);
  }

  /** Brings the loaded similarity codes of a dataset up to date after its records were written (SqliteKnn.follow). */
  async followWrites(datasetId: string): Promise<void> {
    await this.knn.follow(datasetId);
  }

  /** Brings the dataset's loaded metadata columns and record statuses up to date after a write (SqliteMetadata.follow). */
  async followMetadata(datasetId: string, names: string[]): Promise<boolean> {
    return this.metadata.follow(datasetId, names);
  }

  /** The frequent words of the large datasets ranked ahead on the read threads (SqliteText.rankFrequentWords). */
  rankFrequentWords(): Promise<void> {
    return this.text.rankFrequentWords();
  }

  /** Frequent words ranked ahead at the index's current version, and searches that used them (tests, diagnostics). */
  get rankedAhead(): { words: number; searches: number } {
    return { words: this.text.frequentWords, searches: this.text.rankedAhead };
  }

  /** Syncs of similarity codes made after writes (diagnostics, tests). */
  get codesFollowed(): number {
    return this.knn.followed;
  }

  /**
   * What a dataset's first metadata filter reads, loaded ahead (search/warm-up.ts): the metadata
   * columns of these properties and the record statuses the queue's filters exclude by
   * (sqlite-status.ts: one read of the dataset's records). Nothing for a dataset without such properties.
   */
  async warmMetadata(datasetId: string, names: string[]): Promise<void> {
    const raw = rawSqliteOf(this.db);
    if (!raw || names.length === 0) return;
    if (this.options.metadataColumns !== false) await this.metadata.warm(datasetId, names);
    await this.db.connection().execute(async () => {
      recordStatusesOf(raw).of(datasetId);
    });
  }

  /** Bytes held by the search's in-memory structures (GET /api/v1/status, tools/bench). */
  memoryBytes(): {
    similarity_codes: number;
    similarity_index: number;
    similarity_far_side: number;
    metadata_columns: number;
    metadata_matches: number;
    record_statuses: number;
    text_matches: number;
    sort_keys: number;
    response_tallies: number;
    answered_records: number;
  } {
    const raw = rawSqliteOf(this.db);
    return {
      similarity_codes: this.knn.memoryBytes,
      similarity_index: this.knn.indexBytes,
      similarity_far_side: this.knn.farSideBytes,
      metadata_columns: this.metadata.memoryBytes,
      metadata_matches: this.metadata.matchListBytes,
      record_statuses: raw ? recordStatusesOf(raw).memoryBytes : 0,
      text_matches: this.text.cachedBytes,
      // The sorts' runs (sqlite-candidates.ts): 8 bytes a record with a value, per sort key used (1M: 8 MB).
      sort_keys: this.suggestionKeys.memoryBytes + this.metadata.runBytes,
      // Every response as (record seq, user, status) for users' progress (sqlite-response-tallies.ts): 9 bytes a
      // response rowid (354K responses: 3.9 MB), and the answered records' seqs per (dataset, user, statuses) of the
      // request connection (sqlite-answered.ts; the read threads keep their own).
      response_tallies: raw ? responseTalliesOf(raw).memoryBytes : 0,
      answered_records: raw ? answeredSetsOf(raw).memoryBytes : 0,
    };
  }

  /**
   * The similarity work done on the store's read threads so far (GET /api/v1/status): far sides of
   * indexes computed, least_similar list scans, candidate reads. Zero where a thread failed and the
   * request thread did the work instead.
   */
  threadWork(): { similarity_far_sides: number; similarity_far_scans: number; similarity_reads: number } {
    return {
      similarity_far_sides: this.knn.farSidesOnThreads,
      similarity_far_scans: this.knn.scannedOffThread,
      similarity_reads: this.knn.readOffThread,
    };
  }

  /**
   * The search's background work left (GET /api/v1/status): records the text indexer is behind the writes
   * (text-index.ts, its estimate) and similarity indexes being built or due (SqliteKnn.indexesPending).
   */
  pendingWork(): { text_records: number; similarity_indexes: number } {
    return { text_records: textIndexFor(this.db)?.recordsBehind ?? 0, similarity_indexes: this.knn.indexesPending };
  }

  /** Pages given from candidates (sqlite-candidates.ts): from answered records, in a sort's order (tests, diagnostics). */
  get candidatePages(): { answered: number; sorted: number } {
    return { ...this.candidates.pages };
  }

  /** Sorted text pages walked in the sort's order, and walks given up to the plain path (sqlite-text-sorted.ts; tests, diagnostics). */
  get sortedTextWalks(): { pages: number; givenUp: number } {
    return this.text.sortedWalks;
  }

  /** The dataset's loaded metadata columns (tests, diagnostics). */
  metadataColumns(datasetId: string): Record<string, boolean> {
    return this.metadata.loadedColumns(datasetId);
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const metadata = query.filters.some((f) => f.scope.entity === "metadata");
    const textOnly = query.text !== null && !query.vector;
    if (metadata) {
      // The annotation page's metadata filters with their count, from in-memory columns (sqlite-metadata.ts,
      // which need no record_metadata catch-up); the other shapes probe record_metadata. A text search
      // filters its candidates and counts with the columns too, and catches up only if it runs SQL filters.
      const fromColumns = this.options.metadataColumns === false ? null : await this.metadata.search(query);
      // Counted exactly in memory, answered as PostgreSQL answers it (docs/api.md, "Totals"): beyond the filter bound, the bound.
      const limit = filterCountLimit(query, null);
      if (fromColumns && limit !== null && fromColumns.total > limit) return { ...fromColumns, total: limit, totalIsLowerBound: true };
      if (fromColumns) return fromColumns;
      if (!textOnly) await this.catchUpMetadata();
    }
    if (query.vector) {
      const knn = await this.knn.knnSearch(query);
      if (knn) return knn;
    }
    if (query.text && textOnly)
      return this.text.textSearch(
        query,
        query.text,
        this.options.metadataColumns === false ? undefined : () => this.metadata.seqFilter(query),
        metadata ? () => this.catchUpMetadata() : undefined,
        this.options.candidates === false ? undefined : (sort) => this.candidates.runOf(query.datasetId, sort),
      );
    const answered = await this.answeredList(query);
    if (answered) return answered;
    if (!query.text && !query.vector && this.options.candidates !== false) {
      const page = await this.candidates.search(query);
      // The total of a sorted page is the unsorted query's (its own paths: counters, columns, a bounded count).
      if (page) return { hits: page.hits, ...(page.total ?? (await this.totalOfUnsorted(query))) };
    }
    const b = new Builder(query.userId);
    const ctes: string[] = [];
    let from = "records r";
    let score = "NULL";
    if (query.text) {
      await textIndexFor(this.db)?.catchUp(); // records acknowledged but not yet in records_fts (search/text-index.ts)
      const expression = ftsExpression(query.text.q);
      if (expression === null) return { hits: [], total: 0 };
      const match = b.p(expression);
      const fieldClause = query.text.field !== null ? ` AND field = ${b.p(query.text.field)}` : "";
      // bm25() cannot run inside an aggregate: score the matches in a materialized CTE, then keep each record's best field.
      ctes.push(
        `m AS MATERIALIZED (SELECT rowid AS fts_rowid, bm25(records_fts) AS bm FROM records_fts WHERE records_fts MATCH ${match}${fieldClause})`,
      );
      ctes.push("t AS (SELECT fts_rowid >> 10 AS seq, min(bm) AS bm FROM m GROUP BY fts_rowid >> 10)");
      // CROSS JOIN keeps the matches as the outer loop: left to itself the planner may scan the
      // dataset's records and rescan the (unindexed) matches for each one, quadratic in the count query
      // (5 s instead of 2 ms at 5K records).
      from = "t CROSS JOIN records r ON t.seq = r.seq";
      score = "-t.bm";
    }
    if (query.vector) {
      // Placeholders are numbered in text order: the score (select list) comes before the join.
      score = `vec_distance_cosine(v.vector, ${b.p(encodeVector(query.vector.value))})`;
      from += ` JOIN record_vectors v ON v.record_id = r.id AND v.vector_settings_id = ${b.p(query.vector.settingsId)}`;
    }
    const where = [`r.dataset_id = ${b.p(query.datasetId)}`];
    if (query.vector?.excludeRecordId) where.push(`r.id <> ${b.p(query.vector.excludeRecordId)}`);
    for (const f of query.filters) where.push(b.filter(f));
    const base = `${ctes.length ? `WITH ${ctes.join(", ")} ` : ""}SELECT r.id AS id, ${score} AS score FROM ${from} WHERE ${where.join(" AND ")}`;
    const countParams = [...b.params];

    if (query.vector) {
      const direction = query.vector.order === "most_similar" ? "ASC" : "DESC";
      const rows = await this.all<{ id: string; score: number }>(
        `${base} ORDER BY score ${direction}, r.seq LIMIT ${b.p(query.limit)}`,
        b.params,
      );
      // Cosine similarity in [-1, 1] as the query score (1 = same direction).
      return { hits: rows.map((r) => ({ recordId: r.id, score: 1 - r.score })), total: rows.length };
    }

    const order = orderTerms(b, query.sort);
    if (query.sort.length === 0 && query.text) order.push("score DESC");
    order.push("r.seq ASC");
    const pageSql = `${base} ORDER BY ${order.join(", ")} LIMIT ${b.p(query.limit)} OFFSET ${b.p(query.offset)}`;
    const rows = await this.all<{ id: string; score: number | null }>(pageSql, b.params);
    const hits = rows.map((r) => ({ recordId: r.id, score: r.score }));
    if (query.hitsOnly) return { hits, total: hits.length };
    // Without text, a filter other than the queue's is counted up to the filter bound (TESSERA_FILTER_TOTAL_BOUND,
    // docs/api.md): the first passing records in seq order. At 1M records an exact count of pending + a suggestion
    // value probed every record (5.7 s).
    const limit = query.text ? null : filterCountLimit(query, null);
    if (limit !== null && !query.filters.every(isQueueFilter)) {
      const n = (await this.all<{ n: number }>(`SELECT count(*) AS n FROM (${base} LIMIT ${limit + 1})`, countParams))[0]?.n ?? 0;
      return { hits, ...(n > limit ? { total: limit, totalIsLowerBound: true } : { total: n }) };
    }
    const count =
      (await this.pendingQueueCount(query)) ??
      (await this.statusCount(query)) ??
      (await this.all<{ n: number }>(`SELECT count(*) AS n FROM (${base})`, countParams))[0]?.n ??
      0;
    return { hits, total: count };
  }

  /** The total of a sorted query: the same query unsorted (its page left empty). */
  private async totalOfUnsorted(query: SearchQuery): Promise<{ total: number; totalIsLowerBound?: boolean }> {
    const { total, totalIsLowerBound } = await this.search({ ...query, sort: [], offset: query.offset + query.limit, limit: 0 });
    return totalIsLowerBound ? { total, totalIsLowerBound } : { total };
  }

  /**
   * The total of a search without text or vector whose filters are record status terms only (or none): the dataset's
   * counters (migration 0011) instead of counting its records (1M records: ~40 ms of CPU per call).
   */
  private async statusCount(query: SearchQuery): Promise<number | null> {
    if (query.text || query.vector) return null;
    const kept = keptRecordStatuses(query.filters);
    return kept && recordCountWithStatus(this.db, query.datasetId, kept);
  }

  /**
   * The caller's answered records with some statuses and no other filter, text, vector or sort (the annotation page's
   * Submitted, Draft and Discarded views): the page in record order and the exact total from the answered set kept in
   * memory (sqlite-answered.ts) instead of probing every record of the dataset for a response (the count alone reads
   * all of them). Null for any other query.
   */
  private async answeredList(query: SearchQuery): Promise<SearchResult | null> {
    const raw = rawSqliteOf(this.db);
    const userId = query.userId;
    const statuses = query.filters.length === 1 ? answeredStatuses(query.filters) : null;
    if (!raw || !statuses || userId === null || query.text || query.vector || query.sort.length > 0 || this.options.answered === false)
      return null;
    const page = await this.db.connection().execute(async () => {
      const seqs = answeredSetsOf(raw).seqsOf(query.datasetId, userId, statuses);
      const seqsOfPage = Array.from(seqs.subarray(query.offset, query.offset + query.limit));
      const rows =
        seqsOfPage.length === 0
          ? []
          : (raw
              .prepare(
                "SELECT r.seq AS seq, r.id AS id FROM json_each(?) AS c CROSS JOIN records r ON r.seq = c.value WHERE r.dataset_id = ?",
              )
              .all(JSON.stringify(seqsOfPage), query.datasetId) as { seq: number; id: string }[]);
      const idOf = new Map(rows.map((r) => [r.seq, r.id]));
      return {
        hits: seqsOfPage.filter((seq) => idOf.has(seq)).map((seq) => ({ recordId: idOf.get(seq)!, score: null })),
        total: seqs.length,
      };
    });
    return page;
  }

  /**
   * Indexes the metadata of records inserted since the last call into `record_metadata` (migration
   * 0009: no insert trigger, it would slow ingestion); updates and deletes are kept by triggers.
   */
  private async catchUpMetadata(): Promise<void> {
    const state = await this.all<{ done: number; last: number }>(
      "SELECT (SELECT seq FROM search_index_state WHERE name = 'record_metadata') AS done, coalesce((SELECT max(seq) FROM records), 0) AS last",
      [],
    );
    const { done, last } = state[0]!;
    if (done >= last) return;
    await this.db.transaction().execute(async (trx) => {
      const run = (text: string, params: Param[]) => trx.executeQuery(CompiledQuery.raw(text, params));
      await run(
        `INSERT OR IGNORE INTO record_metadata (dataset_id, name, value, seq) SELECT * FROM (${metadataRowsOf("r", "records AS r, ")}) WHERE seq > ?`,
        [done],
      );
      await run("UPDATE search_index_state SET seq = (SELECT coalesce(max(seq), 0) FROM records) WHERE name = 'record_metadata'", []);
    });
  }

  /**
   * The total of a search with response status `pending` (no text or vector query) as
   * count(other filters) - count(records passing them that have a response): of the user on `/me`
   * (from the user's responses, `responses_user_record_idx`), of anyone on the admin search (from the
   * distinct answered records, `responses_record_user_uq`). Same number as the NOT EXISTS count, but
   * one probe per answered record instead of one per record of the dataset (tools/bench: 42 ms ->
   * under 1 ms for the default queue at 10K records).
   */
  private async pendingQueueCount(query: SearchQuery): Promise<number | null> {
    if (query.text || query.vector) return null;
    const split = splitPending(query.filters);
    if (!split) return null;
    if (query.userId === null && !(await this.answeredSetIsSmall(query.datasetId))) return null;
    const answered = new Builder(query.userId);
    const answeredSql = `SELECT count(*) AS n FROM ${answered.answeredRecords(query.datasetId)}${split.others.map((f) => ` AND ${answered.filter(f)}`).join("")}`;
    const c = await this.all<{ n: number }>(answeredSql, answered.params);
    // The annotation page's queue (record status terms only, or nothing else): the dataset's
    // counters (migration 0011) instead of counting its records (linear: 67 ms of CPU at 1M).
    const statuses = keptRecordStatuses(split.others);
    if (statuses) return (await recordCountWithStatus(this.db, query.datasetId, statuses)) - (c[0]?.n ?? 0);
    const all = new Builder(query.userId);
    const allSql = `SELECT count(*) AS n FROM records r WHERE r.dataset_id = ${all.p(query.datasetId)}${split.others.map((f) => ` AND ${all.filter(f)}`).join("")}`;
    const a = await this.all<{ n: number }>(allSql, all.params);
    return (a[0]?.n ?? 0) - (c[0]?.n ?? 0);
  }
}

const ports = new WeakMap<object, SqliteSearch>();
/** One adapter per store connection. */
export function sqliteSearchFor(db: Kysely<DB>): SqliteSearch {
  let port = ports.get(db);
  if (!port) {
    port = new SqliteSearch(db, searchOffOptions(searchOffOf(db)));
    ports.set(db, port);
  }
  return port;
}

/** The record statuses that filters of record status terms only (or none) keep; null when another filter is among them. */
function keptRecordStatuses(filters: SearchQuery["filters"]): string[] | null {
  if (!filters.every((f) => f.type === "terms" && f.scope.entity === "record" && f.scope.property === "status")) return null;
  return RECORD_STATUSES.filter((s) => filters.every((f) => f.type === "terms" && f.values.includes(s)));
}
