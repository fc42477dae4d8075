import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, queryRows, textWords } from "./postgres-sql.js";
import type { SearchQuery } from "./search-port.js";

/** Rows of `records_fts` (one per text field of a record) read in seq order to see how dense the matches are. */
const PROBE_ROWS = 4000;
/**
 * Below this share of matching rows in the probe, the remaining matches come from the GIN index. A
 * walk reads ~2-3 µs a row in seq order (each field's tsvector, detoasted) and needs `n / density`
 * rows; the GIN path visits every match's heap row, scattered (~8 µs each at 1M records when not in
 * shared buffers: a prefix in 65K rows, 550 ms), ~density x 2M rows at 1M records of two text fields.
 * They cost about the same (~150-200 ms for a window of 1,000) around 1-1.5%.
 */
const WALK_MIN_DENSITY = 0.01;

/**
 * The first `n` records of a dataset whose fields match a text query (every word in one field, a
 * prefix word `w*`, or one field), in seq order (fewer when fewer match): what the windowed order of
 * postgres-text.ts ranks, a window of matches after the other. `scores`: the score (ts_rank of the
 * best matching field) of the records the probe found, read with their tsvectors (a dense query needs
 * no other reading).
 *
 * PostgreSQL's planner chooses between walking the primary key in seq order (checking each row's
 * tsvector) and the GIN index (every match, then sorted) from its estimate of the matches, which is
 * far off for prefixes and for words that occur together (a prefix in ~180K rows estimated at 10K: the
 * GIN path, its bitmap lossy in 4 MB of work_mem, rechecking 750K rows: 3.6 s where the walk takes
 * ~30 ms at 1M records). Here the choice follows the density measured on the dataset's first
 * PROBE_ROWS rows: dense, the walk goes on (`ts_match_vq`, the function of `@@`, which no index
 * serves); sparse, the GIN index gives the rest (an order by `seq + 0`, which the primary key cannot
 * give, sequential scans off, work_mem for an exact bitmap and no parallel workers, which took 3x
 * longer here, in the statement's transaction).
 */
export async function firstMatches(
  db: Kysely<DB>,
  query: SearchQuery,
  n: number,
  /** Tests set a smaller probe (PROBE_ROWS) and density (WALK_MIN_DENSITY) to take each path on few records. */
  options: { probeRows?: number; walkMinDensity?: number } = {},
): Promise<{ seqs: number[]; scores: Map<number, number>; path: "probe" | "walk" | "index" }> {
  const probeRows = options.probeRows ?? PROBE_ROWS;
  const text = query.text!;
  const words = textWords(text.q);
  const match = (b: Builder, indexed: boolean) => {
    const tsq = b.tsQuery(words);
    const field = text.field !== null ? ` AND f.field = ${b.p(text.field)}` : "";
    return `(${indexed ? `f.tsv @@ (${tsq})` : `ts_match_vq(f.tsv, (${tsq}))`}${field})`;
  };
  // The probe: the dataset's first rows in seq order, which records match, and their score (ts_rank of the best field).
  const p = new Builder(null);
  const probe = await queryRows<{ seq: number | string; hit: boolean; rows: number | string; score: number | null }>(
    db,
    `SELECT f.record_seq AS seq, bool_or(${match(p, false)}) AS hit, count(*) AS rows,
        max(CASE WHEN ${match(p, false)} THEN ts_rank(f.tsv, (${p.tsQuery(words)})) END)::float8 AS score
      FROM (SELECT f.record_seq, f.field, f.tsv FROM records_fts f JOIN records r ON r.seq = f.record_seq
        WHERE r.dataset_id = ${p.p(query.datasetId)} ORDER BY f.record_seq, f.field LIMIT ${p.p(probeRows)}) f
      GROUP BY f.record_seq ORDER BY f.record_seq`,
    p.params,
  );
  const read = probe.reduce((sum, r) => sum + Number(r.rows), 0);
  const hits = probe.filter((r) => r.hit).map((r) => Number(r.seq));
  const scores = new Map(probe.filter((r) => r.hit).map((r) => [Number(r.seq), r.score ?? 0]));
  /** The first `k` of `seqs` with the scores the probe has of them. */
  const first = (seqs: number[], k: number) => {
    const kept = seqs.slice(0, k);
    return { seqs: kept, scores: new Map(kept.filter((seq) => scores.has(seq)).map((seq) => [seq, scores.get(seq)!])) };
  };
  if (read < probeRows) return { ...first(hits, n), path: "probe" }; // the dataset's every row
  // The probe's last record may have rows beyond it: it is read again. The walk ends at the dataset's last record
  // (records_dataset_seq_idx), not at the end of the other datasets' records after it.
  const last = Number(probe[probe.length - 1]!.seq);
  const found = hits.filter((s) => s < last);
  if (found.length >= n) return { ...first(found, n), path: "probe" };
  const walk = hits.length / read >= (options.walkMinDensity ?? WALK_MIN_DENSITY);
  // A value, not a subquery: of a subquery's range the planner assumes a narrow one, and could then AND a bitmap
  // of the primary key's every row with the GIN index's.
  const end = Number(
    (await queryRows<{ end: number | string }>(db, "SELECT max(seq) AS end FROM records WHERE dataset_id = $1", [query.datasetId]))[0]
      ?.end ?? last,
  );
  const b = new Builder(null);
  const restSql = `SELECT f.record_seq AS seq FROM records_fts f
      WHERE ${match(b, !walk)} AND f.record_seq >= ${b.p(last)}
        AND f.record_seq <= ${b.p(end)}
        AND EXISTS (SELECT 1 FROM records r WHERE r.seq = f.record_seq AND r.dataset_id = ${b.p(query.datasetId)})
      GROUP BY f.record_seq ORDER BY f.record_seq${walk ? "" : " + 0"} LIMIT ${b.p(n - found.length)}`;
  const rest = walk
    ? await queryRows<{ seq: number | string }>(db, restSql, b.params)
    : await db.transaction().execute(async (trx) => {
        await sql`SELECT set_config('enable_seqscan', 'off', true), set_config('work_mem', '64MB', true), set_config('max_parallel_workers_per_gather', '0', true)`.execute(
          trx,
        );
        return queryRows<{ seq: number | string }>(trx, restSql, b.params);
      });
  // The probe's last record is left to the ranking (its rows beyond the probe were not scored).
  return { ...first(found, found.length), seqs: [...found, ...rest.map((r) => Number(r.seq))], path: walk ? "walk" : "index" };
}
