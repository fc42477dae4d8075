import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, queryRows, RECORD_STATUSES } from "./postgres-sql.js";
import type { SearchQuery } from "./search-port.js";

/**
 * How many of `seqs` (records of the query's dataset: the windows a ranked text query read) pass the
 * annotation page's queue filters (record statuses, the caller's pending responses): `seqs` less those of
 * another status and those the caller answered. Counted from the few records that fail them, through
 * `records_dataset_status_seq_idx` over the windows' range and the caller's responses, instead of looking up
 * every one of `seqs` in `record_search` (1M bench records, a window of 1,000 matches: 1,000 lookups, 47 ms of
 * a sparse phrase's ~190 ms, load 5). The planner still looks records up one by one when the other statuses
 * are many (its statistics).
 */
export async function windowPassing(
  db: Kysely<DB>,
  query: SearchQuery,
  queue: { pending: boolean; statuses: string[] },
  seqs: number[],
): Promise<number> {
  const others = RECORD_STATUSES.filter((s) => !queue.statuses.includes(s));
  if (others.length === 0 && !queue.pending) return seqs.length;
  const b = new Builder(null);
  const window = `${b.p(`{${seqs.join(",")}}`)}::bigint[]`;
  const dataset = b.p(query.datasetId);
  const failing: string[] = [];
  if (others.length > 0)
    failing.push(`(SELECT count(*) FROM records r WHERE r.dataset_id = ${dataset} AND r.status IN (${others.map((s) => b.p(s)).join(", ")})
      AND r.seq >= ${b.p(Math.min(...seqs))} AND r.seq <= ${b.p(Math.max(...seqs))} AND r.seq = ANY(${window}))`);
  if (queue.pending && queue.statuses.length > 0)
    failing.push(`(SELECT count(*) FROM responses s JOIN records r ON r.id = s.record_id WHERE s.user_id = ${b.p(query.userId)}
      AND r.dataset_id = ${dataset} AND r.status IN (${queue.statuses.map((s) => b.p(s)).join(", ")}) AND r.seq = ANY(${window}))`);
  const rows = await queryRows<{ n: number | string }>(db, `SELECT ${failing.join(" + ")} AS n`, b.params);
  return seqs.length - Number(rows[0]?.n ?? 0);
}
