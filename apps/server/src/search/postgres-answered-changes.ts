import { Builder, type Param } from "./postgres-sql.js";
import { sortedHas } from "./sorted-array.js";

/** More log rows than this since the version held: read everything again (bounds the statement). */
export const MAX_CHANGED_ROWS = 2000;

/** The row of answeredChangesSql. */
export interface AnsweredChangesRow {
  version: number | string;
  steps: number | string;
  rows: number | string;
  unknown: number | string;
  changed: string;
  answered: string;
}

/**
 * The statement that brings a user's answered records of a dataset (some statuses) from version `held` to the current
 * one (migration 0044's `user_answer_changes`), one snapshot: the current version; how many distinct versions after
 * `held` the log holds and how many rows (at most MAX_CHANGED_ROWS + 1 read); its rows that cannot say (null seq); the
 * dataset's records those versions changed (`changed`) and those of them the user has a response of `statuses` for now
 * (`answered`), both ascending `bigint[]` literals. A version held is current when the two versions are equal.
 * Each changed record's status is a scalar subquery of the record's id, itself one (a key probe each; never hashed nor
 * joined): the planner, estimating a new annotator's responses at a few, otherwise started from the user's responses
 * (1M bench records, 20K Submits, one record changed: a join, 95K buffers, 155 ms; with an EXISTS, a hashed subplan of
 * all of them; with a join inside the subquery, the user's responses walked for each record).
 */
export function answeredChangesSql(datasetId: string, userId: string, statuses: string[], held: number): { sql: string; params: Param[] } {
  const b = new Builder(null);
  const user = b.p(userId);
  const dataset = b.p(datasetId);
  return {
    sql: `WITH c AS MATERIALIZED (SELECT l.version, l.dataset_id, l.seq FROM user_answer_changes l
        WHERE l.user_id = ${user} AND l.version > ${b.p(held)} ORDER BY l.version LIMIT ${MAX_CHANGED_ROWS + 1}),
      d AS MATERIALIZED (SELECT DISTINCT c.seq FROM c WHERE c.dataset_id = ${dataset})
      SELECT coalesce((SELECT v.version FROM user_answer_versions v WHERE v.user_id = ${user}), 0) AS version,
        (SELECT count(DISTINCT c.version) FROM c) AS steps, (SELECT count(*) FROM c) AS rows,
        (SELECT count(*) FROM c WHERE c.seq IS NULL) AS unknown,
        (SELECT coalesce(array_agg(d.seq ORDER BY d.seq), '{}')::text FROM d) AS changed,
        (SELECT coalesce(array_agg(d.seq ORDER BY d.seq) FILTER (WHERE (SELECT s.status FROM responses s WHERE s.user_id = ${user}
          AND s.record_id = (SELECT r.id FROM records r WHERE r.seq = d.seq AND r.dataset_id = ${dataset}))
            IN (${statuses.map((v) => b.p(v)).join(", ")})), '{}')::text FROM d) AS answered`,
    params: b.params,
  };
}

/**
 * Whether the log read by answeredChangesSql says everything that changed between `held` and the current version:
 * every version in between present (the versions of a user are consecutive since 0044; one pruned, or given by 0043's
 * sequence, is missing), no row that cannot say, not cut by the limit.
 */
export function changesComplete(row: AnsweredChangesRow, held: number): boolean {
  return Number(row.steps) === Number(row.version) - held && Number(row.unknown) === 0 && Number(row.rows) <= MAX_CHANGED_ROWS;
}

/** Ascending `seqs` without the `changed` ones, with the `answered` ones (a subset of `changed`, ascending) merged in. */
export function applyChanges(seqs: Float64Array, changed: Float64Array, answered: Float64Array): Float64Array {
  const out = new Float64Array(seqs.length + answered.length);
  let n = 0;
  let j = 0;
  for (const seq of seqs) {
    if (sortedHas(changed, seq)) continue;
    while (j < answered.length && answered[j]! < seq) out[n++] = answered[j++]!;
    out[n++] = seq;
  }
  while (j < answered.length) out[n++] = answered[j++]!;
  return out.slice(0, n);
}
