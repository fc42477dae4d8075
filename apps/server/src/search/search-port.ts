/**
 * The search port: every dialect-specific piece of record search (full text, vector similarity,
 * JSON filters and sorts) sits behind this interface. `sqlite-search.ts` implements it with FTS5 and
 * sqlite-vec; a PostgreSQL adapter (tsvector + pgvector) implements the same interface and runs
 * the same route tests. Names in the query are already resolved and validated by the caller.
 */
export type SearchScope =
  | { entity: "record"; property: "id" | "external_id" | "inserted_at" | "updated_at" | "status" }
  | { entity: "metadata"; name: string }
  /** Response status; `pending` means no response (of the user on the /me variant, of anyone otherwise). */
  | { entity: "response_status" }
  | { entity: "response_value"; questionName: string }
  | { entity: "suggestion"; questionId: string; property: "value" | "agent" | "score" | "type" };

export type SearchFilter =
  | { type: "terms"; scope: SearchScope; values: unknown[] }
  | { type: "range"; scope: SearchScope; ge: number | string | null; le: number | string | null };

export interface SearchSort {
  scope: SearchScope;
  order: "asc" | "desc";
}

export interface SearchQuery {
  datasetId: string;
  /** Set on `/me/.../records/search`: response scopes refer to this user's response. */
  userId: string | null;
  text: { q: string; field: string | null } | null;
  /** Similarity: `limit` is max_results and `offset` is ignored (the route pages); the reference record is excluded. */
  vector: { settingsId: string; value: number[]; order: "most_similar" | "least_similar"; excludeRecordId: string | null } | null;
  filters: SearchFilter[];
  /** Empty: by text score when a text query is given, else insertion order. */
  sort: SearchSort[];
  offset: number;
  limit: number;
  /**
   * Text searches: the total is counted exactly up to this many records (at least `offset + limit`);
   * beyond it the total is that number with `totalIsLowerBound` (counting every match of a common
   * word costs more than the page, issue 31). Unset or null: always exact.
   */
  totalBound?: number | null;
  /**
   * PostgreSQL, a bounded total with a metadata filter (with text: any filter other than the queue's):
   * counted exactly up to this many records instead when fewer (TESSERA_FILTER_TOTAL_BOUND; at least
   * `offset + limit`). Unset: 1,000 with text, `totalBound` without. Null: `totalBound` alone.
   */
  filterBound?: number | null;
  /**
   * The caller reads the hits only (an export narrowing a page of records to those passing): the total may be left
   * uncounted (then the hits' number). At 1M records PostgreSQL's exact count of a metadata filter among a page's 2,000
   * ids read the filter's every record (260-470 ms, no index on `record_search.id`) before an export's first byte.
   */
  hitsOnly?: boolean;
}

export interface SearchHit {
  recordId: string;
  score: number | null;
}
export interface SearchResult {
  hits: SearchHit[];
  total: number;
  /** The total is a lower bound: more records than `total` match (see SearchQuery.totalBound). */
  totalIsLowerBound?: boolean;
}

/** The annotation queue's own filters (record status terms, response status terms), whose totals the counters answer. */
export function isQueueFilter(f: SearchFilter): boolean {
  return f.type === "terms" && (f.scope.entity === "response_status" || (f.scope.entity === "record" && f.scope.property === "status"));
}

/**
 * The bound of a query's total (SearchQuery.totalBound), `bound` being the configured one: a text
 * query or a filter other than the queue's (metadata, suggestions, response values, time ranges) may
 * stop counting there (a common word or a wide filter matches most of a dataset, and counting every
 * match costs more than the page; null: exact; docs/api.md, "Totals"); a similarity search's total is
 * its results, the queue's total stays exact (the counters answer it).
 */
export function totalBoundFor(query: Pick<SearchQuery, "text" | "vector" | "filters">, bound: number | null): number | null {
  if (query.vector) return null;
  return query.text || query.filters.some((f) => !isQueueFilter(f)) ? bound : null;
}

/** The count limit of a query: its bound, raised to the end of its page; null when the total is exact. */
export function countLimit(query: SearchQuery): number | null {
  const bound = query.totalBound ?? null;
  return bound === null || bound <= 0 ? null : Math.max(bound, query.offset + query.limit);
}

/**
 * The count limit of a PostgreSQL query with filters other than the queue's: the lower of its bound
 * (countLimit) and its filter bound (`fallback` when unset), raised to the end of its page; null when exact.
 */
export function filterCountLimit(query: SearchQuery, fallback: number | null): number | null {
  const limit = countLimit(query);
  const bound = query.filterBound === undefined ? fallback : query.filterBound;
  if (limit === null || bound === null || bound <= 0) return limit;
  return Math.max(Math.min(limit, bound), query.offset + query.limit);
}

export interface SearchPort {
  search(query: SearchQuery): Promise<SearchResult>;
}
