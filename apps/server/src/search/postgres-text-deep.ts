import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, queryRows } from "./postgres-sql.js";
import type { SearchQuery } from "./search-port.js";

/**
 * The first `limit` rows (seq, score) of a query's plain ranking over all its matches: the best field's ts_rank, then seq.
 * The scores are taken in the scan of `records_fts` (MATERIALIZED), and the matches joined with the dataset's records after:
 * grouping first sorted every matching row with its tsvector (~1.6 KB each), which spilled ~390 MB to disk for a word in 7.5%
 * of the 1M bench records (1.3 s warm, 4.3 s cold; 1.0 s this way, no spill; docs/performance.md).
 */
export function rankingSql(b: Builder, query: SearchQuery, words: { word: string; prefix: boolean }[], limit: number): string {
  return `WITH q AS (SELECT ${b.tsQuery(words)} AS query),
    s AS MATERIALIZED (SELECT f.record_seq AS seq, ts_rank(f.tsv, q.query) AS score FROM records_fts f, q WHERE f.tsv @@ q.query)
    SELECT s.seq AS seq, max(s.score)::float8 AS score FROM s JOIN records r ON r.seq = s.seq
    WHERE r.dataset_id = ${b.p(query.datasetId)} GROUP BY s.seq ORDER BY score DESC, seq ASC LIMIT ${b.p(limit)}`;
}

/**
 * A page without filters from the rows of an order kept (postgres-text.ts page): every kept row is a record of the dataset,
 * so only the page's rows are looked up (their ids), not every row before them (the SDK iterating a word's pages of 256 at
 * offset 2,816-5,376 looked up 9-16K records a page: 152 ms p50 at 1M). Null when a page's record is gone (deleted since the
 * order was read): the caller's lookup of every row gives the plain path's page.
 */
export async function unfilteredPage(
  db: Kysely<DB>,
  query: SearchQuery,
  ranked: { seqs: number[]; scores: number[] },
): Promise<{ recordId: string; score: number }[] | null> {
  const seqs = ranked.seqs.slice(query.offset, query.offset + query.limit);
  if (seqs.length === 0) return [];
  const b = new Builder(null);
  const rows = await queryRows<{ seq: number | string; id: string }>(
    db,
    `SELECT r.seq AS seq, r.id AS id FROM records r WHERE r.seq = ANY(${b.p(`{${seqs.join(",")}}`)}::bigint[]) AND r.dataset_id = ${b.p(query.datasetId)}`,
    b.params,
  );
  if (rows.length < seqs.length) return null;
  const idOf = new Map(rows.map((r) => [Number(r.seq), r.id]));
  return seqs.map((seq, i) => ({ recordId: idOf.get(seq)!, score: ranked.scores[query.offset + i]! }));
}
