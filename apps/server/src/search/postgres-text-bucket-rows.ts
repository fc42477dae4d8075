import { COLUMNS } from "./postgres-sorted.js";

/**
 * The statement of a text search from `records_fts`'s buckets (statusSearch in postgres-text.ts: a completed head, the
 * records anyone answered): the text's GIN entry read in those buckets and ranked (`tsq`, the tsquery; `buckets`, a
 * parameter of the buckets' array; `field`, a condition on the field or ""), then each match's record looked up by its
 * primary key and `where` (the dataset and the query's filters, on `r`) tested on it; rows `seq`, `id`, `score`.
 *
 * The lookup is a subquery per match (`OFFSET 0`: not pulled up into a join), so that no estimate can choose another path.
 * `r.seq = ANY(ARRAY(SELECT seq FROM m))` let the planner read the dataset's records through records_dataset_updated_idx
 * and test each against the whole array when its statistics did not know the dataset (imported after the last ANALYZE,
 * which autovacuum does not run before a tenth of the table changed): 50K records, a word in 31,443 of a 34K head's,
 * 2.8 s; this way 0.33 s, and no slower when the statistics know the dataset (0.31-0.39 s against 0.39-0.47 s).
 */
export function bucketRowsSql(tsq: string, buckets: string, field: string, where: string[]): string {
  return `WITH q AS (SELECT ${tsq} AS query), m AS MATERIALIZED (SELECT f.record_seq AS seq, max(ts_rank(f.tsv, q.query))::float8 AS score
      FROM records_fts f, q WHERE f.tsv @@ q.query AND ARRAY[f.record_seq / 1024] && ${buckets}::bigint[]${field}
      GROUP BY f.record_seq)
    SELECT r.seq AS seq, r.id AS id, m.score AS score FROM m CROSS JOIN LATERAL (SELECT ${COLUMNS} FROM records r WHERE r.seq = m.seq OFFSET 0) r
    WHERE ${where.join(" AND ")}`;
}
