import { firstWithStatusSql } from "./postgres-first-with-status.js";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, queryRows, RECORD_STATUSES } from "./postgres-sql.js";
import type { SearchQuery } from "./search-port.js";

/** Records of another status expected in the window's range per window record, at most, for reading the range in the status index. */
const OTHERS_PER_SEQ = 4;

/**
 * How many of `seqs` (records of the query's dataset: the windows a ranked text query read) pass the
 * annotation page's queue filters (record statuses, the caller's pending responses): `seqs` less those of
 * another status and those the caller answered. Counted from the few records that fail them, through
 * `records_dataset_status_seq_idx` over the windows' range and the caller's responses, instead of looking up
 * every one of `seqs` in `record_search` (1M bench records, a window of 1,000 matches: 1,000 lookups, 47 ms of
 * a sparse phrase's ~190 ms, load 5).
 *
 * The records of another status are counted by the dataset's counters first (`dataset_record_counts`, exact):
 * none, and nothing is read (the planner looked the window's 1,000 records up by primary key even then: 1M
 * bench records, all pending, a sparse phrase's window over 400K seqs: 2,962 buffers, 9 ms warm, 37-47 ms
 * from the OS cache). Few for the window's range (at the dataset's share of them, at most OTHERS_PER_SEQ per
 * window record), the range is read in the status index alone (`OFFSET 0`: the window's seqs checked on its
 * rows, not looked up); many, each window record is looked up.
 */
export async function windowPassing(
  db: Kysely<DB>,
  query: SearchQuery,
  queue: { pending: boolean; statuses: string[] },
  seqs: number[],
): Promise<number> {
  const b = new Builder(null);
  const passing = windowPassingSql(b, query, queue, seqs);
  if (passing === null) return seqs.length;
  const rows = await queryRows<{ n: number | string }>(db, passing, b.params);
  return Number(rows[0]?.n ?? 0);
}

/**
 * windowPassing's statement (one row, its column `n`), with the parameters of `b`, to be run alone or inside another
 * statement (postgres-text.ts: with the page's filters, one round trip less a windowed search); null: all of `seqs` pass.
 */
export function windowPassingSql(
  b: Builder,
  query: SearchQuery,
  queue: { pending: boolean; statuses: string[] },
  seqs: number[],
): string | null {
  const others = RECORD_STATUSES.filter((s) => !queue.statuses.includes(s));
  if (others.length === 0 && !queue.pending) return null;
  const window = `${b.p(`{${seqs.join(",")}}`)}::bigint[]`;
  const dataset = b.p(query.datasetId);
  const failing: string[] = [];
  let counts = "";
  if (others.length > 0) {
    const statuses = others.map((s) => b.p(s)).join(", ");
    const [lo, hi] = [b.p(Math.min(...seqs)), b.p(Math.max(...seqs))];
    // One status kept (the pending queue): the records before the first of that status (a team's completed head) all fail,
    // counted among the window's seqs; the status index is read from there on. At 1M bench records a head of 16.5K completed
    // records read in the status index for a phrase's windows (their heap rows too: the visibility map is not set after
    // Submits) took 16,800 buffers and 20-59 ms of each page statement.
    const head =
      queue.statuses.length === 1
        ? `coalesce(${firstWithStatusSql(dataset, `${b.p(queue.statuses[0]!)}::text`)}, ${b.p(Number.MAX_SAFE_INTEGER)}::bigint)`
        : `${lo}::bigint`;
    const range = `r.dataset_id = ${dataset} AND r.status IN (${statuses}) AND r.seq >= greatest(${lo}::bigint, k.head) AND r.seq <= ${hi}`;
    // The dataset's records of those statuses and all its records; a CASE evaluates the one subquery its branch takes. The
    // records of those statuses after the head, by the seqs before it (a dataset imported alone: one record a seq), for the choice.
    counts = ` FROM (SELECT c.others, c.total, h.head, greatest(c.others - greatest(h.head - h.first, 0), 0) AS later FROM
      (SELECT coalesce(sum(c.n) FILTER (WHERE c.status IN (${statuses})), 0) AS others, greatest(coalesce(sum(c.n), 0), 1) AS total
        FROM dataset_record_counts c WHERE c.dataset_id = ${dataset}) c,
      (SELECT ${head} AS head, (SELECT min(x.seq) FROM records x WHERE x.dataset_id = ${dataset}) AS first) h OFFSET 0) k`;
    failing.push(`(CASE WHEN k.others = 0 THEN 0 ELSE (SELECT count(*) FROM unnest(${window}) u(seq) WHERE u.seq < k.head) +
      (CASE WHEN k.later * (${hi}::bigint - ${lo}::bigint + 1) <= ${b.p(OTHERS_PER_SEQ * seqs.length)}::bigint * k.total
        THEN (SELECT count(*) FROM (SELECT r.seq FROM records r WHERE ${range} OFFSET 0) o WHERE o.seq = ANY(${window}))
      ELSE (SELECT count(*) FROM records r WHERE ${range} AND r.seq = ANY(${window})) END) END)`);
  }
  if (queue.pending && queue.statuses.length > 0)
    failing.push(`(SELECT count(*) FROM responses s JOIN records r ON r.id = s.record_id WHERE s.user_id = ${b.p(query.userId)}
      AND r.dataset_id = ${dataset} AND r.status IN (${queue.statuses.map((s) => b.p(s)).join(", ")}) AND r.seq = ANY(${window}))`);
  return `SELECT ${b.p(seqs.length)}::bigint - (${failing.join(" + ")}) AS n${counts}`;
}
