/**
 * The seq of a dataset's first record of a status (the parameters `dataset`, e.g. `$1`, and `status`, SQL text: `'pending'` by
 * default; null when none) as a scalar subquery, through
 * records_dataset_status_seq_idx by a row comparison that only that index can serve. `min(seq) WHERE dataset_id = .. AND status =
 * 'pending'` let the planner take records_pkey in seq order and filter the completed head row by row whenever its statistics
 * still say every record is pending (analyzed before the team's Submits: 1M bench records, a head of 33.5K completed records,
 * 25,699 buffers, 108-137 ms at load 6; this way 327 buffers, 3.5 ms).
 */
export const firstWithStatusSql = (dataset: string, status = "'pending'"): string =>
  `(SELECT x.seq FROM records x WHERE (x.dataset_id, x.status, x.seq) >= (${dataset}, ${status}, 0)
    AND (x.dataset_id, x.status) <= (${dataset}, ${status}) ORDER BY x.dataset_id, x.status, x.seq LIMIT 1)`;

/** The seq of a dataset's last record of a status, the same way backwards (`max(seq)` has the same plan under the same statistics). */
export const lastWithStatusSql = (dataset: string, status = "'pending'"): string =>
  `(SELECT x.seq FROM records x WHERE (x.dataset_id, x.status) >= (${dataset}, ${status})
    AND (x.dataset_id, x.status, x.seq) <= (${dataset}, ${status}, 9223372036854775807) ORDER BY x.dataset_id DESC, x.status DESC, x.seq DESC LIMIT 1)`;
