import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { recordCounts } from "../records/counts.js";
import { Builder, firstPassingSeqSql, onSearchRows, queryRows, type Param } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";

/**
 * Records of the dataset the walk reads at most (in seq order) before the GIN path counts instead: ~1.2 µs a
 * record at 1M records, so that a filter passing at least 5% of the records is decided at a bound of 1,000.
 */
const WALK_RECORDS = 20_000;

/** Filters on the row itself first (AND stops at the first false), those that read other tables last. */
const cost = (f: SearchFilter): number => (f.scope.entity === "record" || f.scope.entity === "metadata" ? 0 : 1);
export const cheapFirst = (filters: SearchFilter[]): SearchFilter[] => [...filters].sort((a, b) => cost(a) - cost(b));

/**
 * The records passing `hit` among the dataset's first `walkRecords` rows of `record_search` in seq order that can
 * pass the query's filters, up to `bound + 1` of them: from the first record of the one status the filters keep
 * (firstPassingSeqSql: after a completed head, for the queue), else from the dataset's first record
 * (records_dataset_seq_idx, so that other datasets' records before it are not read). `decided`: more than `bound`
 * pass, or the walk read every record of the dataset from there (the count is exact).
 */
export async function walkCount(
  db: Kysely<DB>,
  query: SearchQuery,
  hit: (b: Builder) => string,
  bound: number,
  walkRecords: number,
  /** The dataset's records when the caller has read them (recordCounts). */
  records?: number,
): Promise<{ n: number; decided: boolean }> {
  const b = new Builder(query.userId);
  const hitSql = hit(b);
  const dataset = b.p(query.datasetId);
  const start = firstPassingSeqSql(b, query.filters, dataset);
  const params: Param[] = b.params;
  // `read`: the rows walked until the passing count exceeds the bound (the window's run condition ends the scan there).
  const rows = await queryRows<{ read: number | string; n: number | string }>(
    db,
    `SELECT count(*) AS read, coalesce(max(c.n), 0) AS n FROM (
      SELECT count(*) FILTER (WHERE w.hit) OVER (ROWS UNBOUNDED PRECEDING) AS n FROM (
        SELECT ${hitSql} AS hit FROM record_search r WHERE r.dataset_id = ${dataset} AND r.seq >= ${start}
        ORDER BY r.seq LIMIT ${b.p(walkRecords)}) w) c
      WHERE c.n <= ${b.p(bound + 1)}`,
    params,
  );
  const n = Number(rows[0]?.n ?? 0);
  if (n > bound || Number(rows[0]?.read ?? 0) < walkRecords) return { n, decided: true };
  // As many rows as the walk's: every one of them when the dataset holds no more.
  return { n, decided: (records ?? (await recordCounts(db, query.datasetId)).total) <= walkRecords };
}

/**
 * The bounded total of a search without text or vector whose filters include a metadata, suggestion or response
 * value filter (the
 * annotation page's queue with `source` = one of 5 and `quality` 0.25-0.75: ~10% pass), exact up to
 * `bound`. First the dataset's `record_search` rows in seq order, the filters on each row (metadata
 * by containment on the row, without the terms array clause that the GIN index serves), until `bound + 1`
 * pass, at most WALK_RECORDS records; when that does not decide (a rarer filter), the GIN path
 * (postgres-search.ts filterCount). At 1M records and a bound of 1,000 the walk took 12 ms of
 * PostgreSQL's CPU against 47 ms by the GIN path (its bitmap of a term in 20% of the records is
 * most of it) and 78-102 ms by the GIN path at 10,000 (load 15).
 */
export async function filterTotal(
  db: Kysely<DB>,
  query: SearchQuery,
  bound: number,
  options: { walkRecords?: number } = {},
): Promise<{ total: number; totalIsLowerBound?: true; path: "walk" | "index" | "answered" }> {
  const bounded = (n: number, path: "walk" | "index" | "answered") =>
    n > bound ? { total: bound, totalIsLowerBound: true as const, path } : { total: n, path };
  if (query.filters.some(answeredOnly)) {
    const { sql, params } = answeredCount(query, bound);
    return bounded(Number((await queryRows<{ n: number | string }>(db, sql, params))[0]?.n ?? 0), "answered");
  }
  if (onSearchRows(query.filters)) {
    const filters = cheapFirst(query.filters);
    const walk = await walkCount(
      db,
      query,
      (b) => filters.map((f) => b.filter(f)).join(" AND ") || "true",
      bound,
      options.walkRecords ?? WALK_RECORDS,
    );
    if (walk.decided) return bounded(walk.n, "walk");
  }
  const { sql, params } = filterCount(query, bound);
  return bounded(Number((await queryRows<{ n: number | string }>(db, sql, params))[0]?.n ?? 0), "index");
}

/**
 * The number of records a query without text or vector matches (its filters), up to `limit` + 1
 * when bounded. Over `record_search` (migration 0025: one narrow row per record with its id, status and
 * metadata, and a GIN index on the metadata terms) when the filters read nothing else (onSearchRows),
 * else over `records`. At 1M bench records a ~10% metadata filter's first 10,001 matches read ~100K
 * rows either way: ~1.4 KB each in `records` (the fields inline), ~200 bytes in `record_search`.
 * `reference`: over `records` whatever the filters (tests compare both).
 */
export function filterCount(query: SearchQuery, limit: number | null, reference = false): { sql: string; params: Param[] } {
  const rows = !reference && onSearchRows(query.filters);
  const c = new Builder(query.userId, rows);
  const where = [`r.dataset_id = ${c.p(query.datasetId)}`, ...query.filters.map((f) => c.filter(f))];
  const matches = `SELECT 1 FROM ${rows ? "record_search" : "records"} r WHERE ${where.join(" AND ")}`;
  return {
    sql:
      limit !== null
        ? `SELECT count(*) AS n FROM (${matches} LIMIT ${c.p(limit + 1)}) AS matches`
        : `SELECT count(*) AS n FROM (${matches}) AS matches`,
    params: c.params,
  };
}

/** A filter only records with a response pass (of the caller on `/me`): a response value, a response status other than pending. */
export const answeredOnly = (f: SearchFilter): boolean =>
  f.scope.entity === "response_value" || (f.scope.entity === "response_status" && f.type === "terms" && !f.values.includes("pending"));

/**
 * The count of a query with a filter only answered records pass (answeredOnly), up to `limit` + 1: from the
 * records with responses (the caller's on `/me`), few beside the records, each tested with the filters. At 1M
 * bench records the admin's response value filter (3,543 of 10.5K answered records) counted over `record_search`
 * took 705 ms: `record_search` has no index on the records' id, so PostgreSQL read all its rows to join them.
 *
 * The caller's responses are one per record (responses_record_user_uq) and are read as they are: `DISTINCT` over them
 * made an aggregate that the planner, when its statistics did not know the caller (an annotator who answered after the
 * last ANALYZE: an estimate of 1 response), joined by a nested loop that scanned it again for each of the caller's
 * submitted responses (200K records, 10,001 of 30K submitted counted: 150M rows compared, 24.7 s; this way 44 ms).
 * `limit` null: exact (the caller's Submitted list, whose total is not bounded: postgres-search.ts). Over `record_search`
 * the 1M bench records' 34K Submits of one annotator were each looked up twice (by id in `records`, then by seq in
 * `record_search`: 180K buffers, 204 ms); this way once (37K buffers, 48-65 ms).
 */
export function answeredCount(query: SearchQuery, limit: number | null): { sql: string; params: Param[] } {
  const c = new Builder(query.userId);
  const answered =
    query.userId !== null
      ? `SELECT s.record_id FROM responses s WHERE s.user_id = ${c.p(query.userId)}`
      : "SELECT DISTINCT s.record_id FROM responses s";
  const where = [`r.dataset_id = ${c.p(query.datasetId)}`, ...cheapFirst(query.filters).map((f) => c.filter(f))];
  return {
    sql: `SELECT count(*) AS n FROM (SELECT 1 FROM (${answered}) k JOIN records r ON r.id = k.record_id
      WHERE ${where.join(" AND ")}${limit === null ? "" : ` LIMIT ${c.p(limit + 1)}`}) AS matches`,
    params: c.params,
  };
}
