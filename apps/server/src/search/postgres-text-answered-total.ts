import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, onSearchRows, type Param, queryRows, textMatchSql } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";

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
  /** The share of the dataset's records the word is in (its ranking ahead's records), to choose the walk. */
  wordShare: number,
): Promise<number> {
  const b = new Builder(null);
  // The ids as one array literal, PostgreSQL's own, sent back as it is (not 34K rows parsed and quoted again in Node).
  const [row] = await queryRows<{ ids: string; n: number | string }>(
    db,
    `SELECT coalesce(array_agg(s.record_id), '{}')::text AS ids, count(*) AS n FROM responses s WHERE s.user_id = ${b.p(query.userId)}
      AND s.status IN (${status.values.map((v) => b.p(String(v))).join(", ")})`,
    b.params,
  );
  if (!row || Number(row.n) === 0) return 0;
  // Expected to find more than the bound among the answered records: walked by record (id first), else through the word's entry.
  const walk = limit !== null && Number(row.n) * wordShare > 2 * (limit + 1);
  const { sql, params } = answeredTextCount(query, status, row.ids, limit, walk);
  return Number((await queryRows<{ n: number | string }>(db, sql, params))[0]?.n ?? 0);
}

/**
 * The count of answeredTotal: the text's matches (textMatchSql) whose id is in `ids`, passing the query's filters
 * other than `status` (which `ids` stand for: the caller's response of those statuses, one per record by
 * responses_record_user_uq), up to `limit` + 1. The ids are a constant array, which PostgreSQL tests by a hash on each
 * match whatever its statistics say: a join with the caller's responses, which statistics taken before the caller
 * answered estimated at 1, became a nested loop reading them again for every match (5,000 records, 500 matches: 617K
 * responses read).
 */
export function answeredTextCount(
  query: SearchQuery,
  status: SearchFilter,
  /** A PostgreSQL array literal of record ids (`text[]`). */
  ids: string,
  limit: number | null,
  /**
   * The answered records' rows first (`record_search` in its order, the ids tested by hash), the word tested on those only: as
   * one filter PostgreSQL tested the word first on every row, the id array costed as a linear search (1M bench records, 20K
   * Submits every 50th record, a word in 79%: 3.5M buffers of tsvectors, 3.9 s); else the word's GIN entry, then the ids.
   */
  walk = false,
): { sql: string; params: Param[] } {
  const others = query.filters.filter((f) => f !== status);
  const rows = onSearchRows(others);
  const c = new Builder(query.userId, rows);
  const match = textMatchSql(c, query, rows);
  const answered = `${match.x}.id = ANY(${c.p(ids)}::text[])`;
  const fenced = walk && rows;
  const from = fenced
    ? `(SELECT * FROM record_search r WHERE r.dataset_id = ${c.p(query.datasetId)} AND ${answered} OFFSET 0) r`
    : match.from;
  const where = [...match.where, ...(fenced ? [] : [answered]), ...others.map((f) => c.filter(f))];
  const bound = limit === null ? "" : ` LIMIT ${c.p(limit + 1)}`;
  return { sql: `SELECT count(*) AS n FROM (SELECT 1 FROM ${from} WHERE ${where.join(" AND ")}${bound}) AS first`, params: c.params };
}
