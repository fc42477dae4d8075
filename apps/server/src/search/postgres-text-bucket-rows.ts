/**
 * The statement of a text search from `records_fts`'s buckets (statusSearch in postgres-text.ts: a completed head, the
 * records anyone answered): the text's GIN entry read in those buckets and ranked (`tsq`, the tsquery; `buckets`, a
 * parameter of the buckets' array; `field`, a condition on the field or ""), then the matches' records read by their
 * primary key (the array of their seqs, an InitPlan), in the dataset (`dataset`, a parameter) and passing `filters` (on
 * `r`); rows `seq`, `id`, `score`.
 *
 * The dataset is tested on each record read (`|| ''`: no index can serve it), so the primary key is the only way to the
 * records whatever the statistics say. As a plain `r.dataset_id = ..` the planner read the dataset's records through
 * records_dataset_updated_idx and tested each against the whole array when its statistics did not know the dataset
 * (imported after the last ANALYZE, which autovacuum does not run before a tenth of the table changed): 50K records, a
 * word in 31,443 of a 34K head's, a response value filter, 2.8 s; this way the plan is the primary key's whatever the
 * statistics (the test), and as fast where they know the dataset (0.26-0.29 s against 0.23-0.38 s, load 4.4). A lookup
 * per match (a lateral subquery) was as robust but slower (0.43-0.50 s), and with the filters outside it responses
 * analyzed before any Submit (an estimate of 1) made the Submitted filter a nested loop over every response once per
 * match (197 s).
 *
 * Each row ranked as it is read (`OFFSET 0`), then the record's best score: `max(ts_rank(..))` grouped by record sorted the
 * rows with their tsvectors to group them (1M bench records, a word in every record of a 34,815-record head: 69,599 rows,
 * ~40 MB sorted on disk by each of 3 processes, 246-284 ms for the matches, 472-478 ms in all); grouped after ranking, by
 * hash, 100-136 ms and 280-402 ms (load 3.4).
 */
export function bucketRowsSql(tsq: string, buckets: string, field: string, dataset: string, filters: string[]): string {
  return `WITH q AS (SELECT ${tsq} AS query), m AS MATERIALIZED (SELECT x.seq, max(x.score)::float8 AS score FROM (
      SELECT f.record_seq AS seq, ts_rank(f.tsv, q.query) AS score FROM records_fts f, q
      WHERE f.tsv @@ q.query AND ARRAY[f.record_seq / 1024] && ${buckets}::bigint[]${field} OFFSET 0) x GROUP BY x.seq)
    SELECT r.seq AS seq, r.id AS id, m.score AS score FROM records r JOIN m ON m.seq = r.seq
    WHERE ${["r.seq = ANY(ARRAY(SELECT seq FROM m))", `r.dataset_id || '' = ${dataset}`, ...filters].join(" AND ")}`;
}
