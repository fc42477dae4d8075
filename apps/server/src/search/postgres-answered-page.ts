import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { answeredStatusFilter } from "./answered-filter.js";
import { cheapFirst } from "./postgres-filter-total.js";
import { Builder, firstPassingSeqSql, queryRows, type Param } from "./postgres-sql.js";
import type { SearchQuery } from "./search-port.js";

/**
 * Records of the dataset (in seq order) the walk reads at most before the plain statement pages instead: a page of 10
 * fills there when at least 1 record in 200 is the caller's (an annotator of a team of 50 sharing the queue: 1 in 50).
 */
export const ANSWERED_WALK_RECORDS = 2_000;

/**
 * The caller's Submitted (Discarded, Draft) list without text, vector or sort (`/me` with a response status filter
 * without `pending`, in seq order): the walk applies to it.
 */
export const answeredWalkable = (query: SearchQuery): boolean =>
  query.userId !== null && !query.text && !query.vector && query.sort.length === 0 && answeredStatusFilter(query.filters) !== undefined;

/**
 * The page of an answeredWalkable query from the dataset's first `walkRecords` records in seq order (from the first of
 * the one record status the filters keep), each tested with the filters (the caller's response by
 * responses_record_user_uq): a full page, else null (the plain statement of postgres-search.ts, which reads all the
 * caller's answered records, then). The plain statement's plan follows the planner's estimate of the caller's responses:
 * with few (statistics taken before the caller answered, or a caller with few Submits) it reads every response of the
 * caller, looks up each one's record and sorts them (1M bench records, 34K Submits: 37K buffers, ~50-200 ms); the walk
 * reads the records up to the page's last one. `null` too when the page ends beyond the walk.
 */
export async function answeredPage(
  db: Kysely<DB>,
  query: SearchQuery,
  walkRecords = ANSWERED_WALK_RECORDS,
): Promise<{ id: string; seq: number }[] | null> {
  if (query.limit <= 0 || query.offset + query.limit > walkRecords) return null;
  const { sql, params } = answeredWalkSql(query, walkRecords);
  const rows = await queryRows<{ id: string; seq: number | string }>(db, sql, params);
  return rows.length === query.limit ? rows.map((r) => ({ id: r.id, seq: Number(r.seq) })) : null;
}

/**
 * The walk's statement (answeredPage): the records in seq order under a LIMIT, each joined laterally with the caller's
 * response of the filter's statuses (a parameterized lookup per record: an `EXISTS` the planner may turn into a hash of
 * all the caller's responses when its statistics say they are few), then the other filters.
 */
export function answeredWalkSql(query: SearchQuery, walkRecords: number): { sql: string; params: Param[] } {
  const status = answeredStatusFilter(query.filters);
  if (!query.userId || status?.type !== "terms") throw new Error("answeredWalkSql: the caller's response status filter is required");
  const b = new Builder(query.userId);
  const dataset = b.p(query.datasetId);
  const start = firstPassingSeqSql(b, query.filters, dataset);
  const walked = `SELECT r.* FROM records r WHERE r.dataset_id = ${dataset} AND r.seq >= ${start} ORDER BY r.seq LIMIT ${b.p(walkRecords)}`;
  const response = `SELECT 1 FROM responses s WHERE s.record_id = r.id AND s.user_id = ${b.p(query.userId)}
    AND s.status IN (${status.values.map((v) => b.p(String(v))).join(", ")}) LIMIT 1`;
  const where = cheapFirst(query.filters.filter((f) => f !== status)).map((f) => b.filter(f));
  return {
    sql: `SELECT r.id, r.seq FROM (${walked}) r CROSS JOIN LATERAL (${response}) a
      ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY r.seq LIMIT ${b.p(query.limit)} OFFSET ${b.p(query.offset)}`,
    params: b.params,
  };
}
