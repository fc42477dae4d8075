/**
 * SQL: the search's score (`max(ts_rank(f.tsv, query))::float8` over the record's fields) of a record where a one-lexeme
 * query's word occurs `occurrences` times in its best field (an SQL expression, 1 to 255), without the record's tsvectors.
 * ts_rank of one lexeme with the default weights and no normalization (tsrank.c calc_rank_or) reads only the number of
 * its positions and their weights (to_tsvector sets none: D), so it is ts_rank itself on a tsvector of that many D
 * positions: the same float4, bit for bit (postgres-rank-ahead.test.ts compares it with real texts).
 */
export function occurrenceScoreSql(occurrences: string): string {
  return `ts_rank(('x:' || array_to_string(array(SELECT generate_series(1, ${occurrences})), ','))::tsvector, 'x'::tsquery)::float8`;
}
