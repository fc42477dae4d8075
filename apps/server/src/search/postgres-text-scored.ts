import type { Builder } from "./postgres-sql.js";
import { occurrenceScoreSql } from "./postgres-occurrence-score.js";

/**
 * The rows (seq, id, in the order of `ord`) of `rows` with their exact scores, the search's own expression (ts_rank of the best matching field), in
 * the statement that finds them: a statement a page less than scoring them after (one round trip of ~9 for a new word). The first
 * `skip` rows (before the page's offset) are not scored (null): each score reads the record's tsvectors, and a page of 256 at
 * offset 2,560 scored 2,816 of them. `fromCounts`: `rows` gives each row's occurrences of the word in its best field (`occ`),
 * the score computed from them (postgres-occurrence-score.ts), the tsvectors not read.
 */
export function scored(b: Builder, word: string, rows: string, skip = 0, fromCounts = false): string {
  const score = fromCounts
    ? occurrenceScoreSql("p.occ")
    : `(SELECT max(ts_rank(f.tsv, q.query))::float8 FROM records_fts f,
      (SELECT plainto_tsquery('tessera_search', ${b.p(word)}) AS query) q WHERE f.record_seq = p.seq AND f.tsv @@ q.query)`;
  return `SELECT p.seq, p.id, CASE WHEN p.n > ${b.p(Math.max(0, skip))} THEN ${score} END AS score
    FROM (SELECT x.*, row_number() OVER (ORDER BY x.ord) AS n FROM (${rows}) x) p ORDER BY p.ord`;
}
