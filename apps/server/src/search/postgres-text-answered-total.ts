import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, onSearchRows, type Param, queryRows, textMatchSql } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";

/**
 * The bounded total of a text search of the caller's answered records (answeredSearch in postgres-text.ts, beyond
 * ANSWERED_MAX of them), up to `limit` + 1 (null: all): the text's matches among `seqs`, the caller's answered records
 * of the dataset with the status filter's statuses (postgres-answered-seqs.ts), passing the query's other filters.
 *
 * Two forms, chosen by the matches expected among them (`seqs` x the word's share of the dataset's records):
 * - more than twice the bound: walked, the first answered records by primary key (as many as should hold twice the
 *   bound) with the word tested on each (its tsvector read: ~10-30 us a record), stopping at the bound; the rest, when
 *   those held fewer, counted as below.
 * - else through the index: the word's GIN entry ANDed with the answered records' primary key entries (BitmapAnd), then
 *   only the records in both read. The planner, left to itself, walked every answered record for a word in 6% of the
 *   1M bench records (it costs the word's test as nothing: 34K records, 133K buffers, 340 ms; 1.7K buffers, 32-37 ms this
 *   way), so this form is planned without plain index scans.
 * Before, the count read every response of the caller as record ids and tested them on each of the word's matches (a
 * rare word's 19K matches: 18.9K buffers, ~200 ms) or walked the dataset's records in order (every 50th answered: 68K).
 */
export async function answeredTotal(
  db: Kysely<DB>,
  query: SearchQuery,
  status: SearchFilter,
  seqs: Float64Array,
  limit: number | null,
  /** The share of the dataset's records the word is in (its ranking ahead's records), to choose the form. */
  wordShare: number,
): Promise<number> {
  if (seqs.length === 0) return 0;
  const want = limit === null ? Number.POSITIVE_INFINITY : limit + 1;
  let walked = 0;
  let n = 0;
  if (limit !== null && seqs.length * wordShare > 2 * want) {
    walked = Math.min(seqs.length, Math.ceil((2 * want) / Math.max(wordShare, 1e-9)));
    const { sql: text, params } = answeredTextCount(query, status, seqs.subarray(0, walked), want);
    n = Number((await queryRows<{ n: number | string }>(db, text, params))[0]?.n ?? 0);
    if (n >= want || walked === seqs.length) return n;
  }
  const { sql: text, params } = answeredTextCount(query, status, seqs.subarray(walked), null);
  const counted = await db.transaction().execute(async (trx) => {
    await sql.raw("SELECT set_config('enable_indexscan', 'off', true), set_config('enable_seqscan', 'off', true)").execute(trx);
    return Number((await queryRows<{ n: number | string }>(trx, text, params))[0]?.n ?? 0);
  });
  return Math.min(n + counted, want);
}

/**
 * The count of answeredTotal: the text's matches (textMatchSql) among `seqs` (ascending; a constant array the primary
 * key's index reads in order), passing the query's filters other than `status` (which `seqs` stand for), up to `limit`
 * (null: all).
 */
export function answeredTextCount(
  query: SearchQuery,
  status: SearchFilter,
  seqs: Float64Array,
  limit: number | null,
): { sql: string; params: Param[] } {
  const others = query.filters.filter((f) => f !== status);
  const rows = onSearchRows(others);
  const c = new Builder(query.userId, rows);
  const match = textMatchSql(c, query, rows);
  const where = [`${match.x}.seq = ANY(${c.p(`{${seqs.join(",")}}`)}::bigint[])`, ...match.where, ...others.map((f) => c.filter(f))];
  const bound = limit === null ? "" : ` LIMIT ${c.p(limit)}`;
  return { sql: `SELECT count(*) AS n FROM (SELECT 1 FROM ${match.from} WHERE ${where.join(" AND ")}${bound}) AS first`, params: c.params };
}
