import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, onSearchRows, type Param, queryRows, textMatchSql } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";

/** A PostgreSQL array literal of texts (each quoted, `"` and `\` escaped), for a `text[]` parameter. */
const textArray = (values: string[]): string => `{${values.map((v) => `"${v.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`;

/**
 * The bounded total of a text search of the caller's answered records (answeredSearch in postgres-text.ts, beyond
 * ANSWERED_MAX of them), up to `limit` + 1 (null: all): the record ids of the caller's responses with the status filter's
 * statuses (responses_user_record_idx; every dataset's, the count keeps this one's), then the text's matches among them.
 * Each answered record's seq was looked up in `records` before (1M bench records, 34K Submits: 137K buffers, 130-300 ms
 * at load 8 before the count itself).
 */
export async function answeredTotal(
  db: Kysely<DB>,
  query: SearchQuery,
  status: SearchFilter & { type: "terms" },
  limit: number | null,
): Promise<number> {
  const b = new Builder(null);
  const rows = await queryRows<{ id: string }>(
    db,
    `SELECT s.record_id AS id FROM responses s WHERE s.user_id = ${b.p(query.userId)}
      AND s.status IN (${status.values.map((v) => b.p(String(v))).join(", ")})`,
    b.params,
  );
  if (rows.length === 0) return 0;
  const { sql, params } = answeredTextCount(
    query,
    status,
    rows.map((r) => r.id),
    limit,
  );
  return Number((await queryRows<{ n: number | string }>(db, sql, params))[0]?.n ?? 0);
}

/**
 * The count of answeredTotal: the text's matches (textMatchSql) whose id is one of `ids`, passing the query's filters
 * other than `status` (which `ids` stand for: the caller's response of those statuses, one per record by
 * responses_record_user_uq), up to `limit` + 1. The ids are a constant array, which PostgreSQL tests by a hash on each
 * match whatever its statistics say: a join with the caller's responses, which statistics taken before the caller
 * answered estimated at 1, became a nested loop reading them again for every match (5,000 records, 500 matches: 617K
 * responses read).
 */
export function answeredTextCount(
  query: SearchQuery,
  status: SearchFilter,
  ids: string[],
  limit: number | null,
): { sql: string; params: Param[] } {
  const others = query.filters.filter((f) => f !== status);
  const rows = onSearchRows(others);
  const c = new Builder(query.userId, rows);
  const match = textMatchSql(c, query, rows);
  const where = [...match.where, `${match.x}.id = ANY(${c.p(textArray(ids))}::text[])`, ...others.map((f) => c.filter(f))];
  const bound = limit === null ? "" : ` LIMIT ${c.p(limit + 1)}`;
  return { sql: `SELECT count(*) AS n FROM (SELECT 1 FROM ${match.from} WHERE ${where.join(" AND ")}${bound}) AS first`, params: c.params };
}
