import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { queryRows } from "./postgres-sql.js";

/** A list to redo at its version: shorter than `$n` allows (min($n, the word's repeated records)), or without its counts. */
const UNFINISHED = (n: string) => `(cardinality(seqs) < least(repeated, ${n}) OR counts IS NULL)`;

/**
 * Whether a dataset's words ranked ahead at `version` include a list stored shorter than `listLength` allows
 * (fewer records than min(listLength, the word's repeated records)) or without its occurrence counts (ranked before
 * migration 0040): a database ranked before RANKED_AHEAD grew (1,024 → 8,192, session 21) keeps its short lists until
 * its text changes, and the SDK's deep pages of such a word rank every match (~2 s at 1M); a list without counts is
 * scored from its records' tsvectors. Reads each row's array length (5,001 rows at 1M: ~4 ms when one is found first).
 */
export async function hasShortLists(db: Kysely<DB>, datasetId: string, version: number, listLength: number): Promise<boolean> {
  const rows = await queryRows(
    db,
    `SELECT 1 FROM text_ranked_ahead WHERE dataset_id = $1 AND version = $2 AND ${UNFINISHED("$3")} LIMIT 1`,
    [datasetId, version, listLength],
  );
  return rows.length > 0;
}

/**
 * Lengthens the short lists of a dataset ranked at its current version, and gives the lists without counts theirs: the same
 * ordering as the ranking's (postgres-rank-ahead.ts: the records where the word occurs at least twice in one field, most
 * occurrences in one field, then seq), for those words only, in the statement's snapshot; `records` and `repeated` stay
 * (same version, same text). A row whose version is no longer the dataset's is left to the next ranking. Searches keep
 * reading the old rows until the commit. One pass over the dataset's tsvectors, without ts_stat's aggregation of
 * every word. The 1M bench records (741 words stored at 1,024 of more): EXPLAIN ANALYZE of the read on the first 50K
 * records took 19 s at load 6.5 (1.8M word-record pairs, half of it sorting them): ~6-7 min at 1M, once, where the
 * full ranking took 12 min. Returns the words lengthened or counted.
 */
export async function lengthenShortLists(db: Kysely<DB>, datasetId: string, listLength: number): Promise<number> {
  const rows = await queryRows<{ word: string }>(
    db,
    `WITH v AS (SELECT coalesce(max(id), 0) AS version FROM text_search_changes WHERE dataset_id = $1),
     short AS MATERIALIZED (
       SELECT a.word, (tsvector_to_array(a.word::tsvector))[1] AS lexeme FROM text_ranked_ahead a CROSS JOIN v
       WHERE a.dataset_id = $1 AND a.version = v.version AND ${UNFINISHED("$2")}),
     pairs AS (
       SELECT u.lexeme, f.record_seq AS seq, max(cardinality(u.positions)) AS n
       FROM records_fts f JOIN records r ON r.seq = f.record_seq, unnest(f.tsv) AS u
       WHERE r.dataset_id = $1 AND cardinality(u.positions) >= 2 AND u.lexeme IN (SELECT lexeme FROM short)
       GROUP BY 1, 2),
     lists AS (SELECT lexeme, (array_agg(seq ORDER BY n DESC, seq))[1:$2] AS seqs,
       (array_agg(n ORDER BY n DESC, seq))[1:$2]::smallint[] AS counts FROM pairs GROUP BY lexeme)
     UPDATE text_ranked_ahead t SET seqs = coalesce(l.seqs, '{}'), counts = coalesce(l.counts, '{}')
     FROM short s LEFT JOIN lists l ON l.lexeme = s.lexeme CROSS JOIN v
     WHERE t.dataset_id = $1 AND t.word = s.word AND t.version = v.version
     RETURNING t.word`,
    [datasetId, listLength],
  );
  return rows.length;
}
