import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, onSearchRows, queryRows, textMatchSql } from "./postgres-sql.js";
import type { Passing } from "./postgres-text-ahead-listed.js";
import { scored } from "./postgres-text-scored.js";
import type { SearchQuery } from "./search-port.js";

/**
 * The single occurrences of a plain word ranked ahead by seq, where the buckets (postgres-text-singles.ts) do not serve: a page
 * with filters, or without `records_fts`'s bucket index, or among the caller's answered records (pageAhead,
 * postgres-text-ahead.ts). The first `n` records of the dataset that match the word, pass the query's filters and are `among`
 * (a condition on `r.seq`, its parameters added to the builder given), in seq order, those after the first `skip` scored; each
 * has one occurrence in every field it is in (the word's list holds every record with more), so it is scored as one.
 *
 * The records the word's GIN entry gives (record_search, migration 0025), the filters' narrow rows when they allow (onSearchRows).
 * `few` (a word in few records with filters other than the queue's, a metadata filter): in seq order through the GIN entries
 * (`r.seq + 0`), not by the planner's walk of record_search_pkey, which checks the word on each row's out-of-line tsvector
 * (1M records, a word in 6% and the ~10% filter: 304K buffers, 572 ms; 150 ms this way).
 */
export async function singlesBySeq(
  db: Kysely<DB>,
  query: SearchQuery,
  word: string,
  among: (b: Builder) => string,
  n: number,
  skip: number,
  few: boolean,
): Promise<Passing[]> {
  const rows = onSearchRows(query.filters);
  const b = new Builder(query.userId, rows);
  const amongSeqs = among(b);
  const match = textMatchSql(b, query, rows);
  const where = [...match.where, amongSeqs, ...query.filters.map((f) => b.filter(f))];
  const found = await queryRows<{ seq: number | string; id: string; score: number | null }>(
    db,
    scored(
      b,
      word,
      `SELECT r.seq AS seq, r.id AS id, r.seq AS ord, 1 AS occ FROM ${match.from} WHERE ${where.join(" AND ")} ORDER BY r.seq${few ? " + 0" : ""} LIMIT ${b.p(n)}`,
      skip,
      true,
    ),
    b.params,
  );
  return found.map((r) => ({ seq: Number(r.seq), id: r.id, score: r.score }));
}
