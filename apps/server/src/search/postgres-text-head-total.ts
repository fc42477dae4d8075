import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { recordCounts } from "../records/counts.js";
import { firstWithStatusSql } from "./postgres-first-with-status.js";
import { Builder, queueFilters, queryRows, versionRecordsSql } from "./postgres-sql.js";
import type { RankedAhead } from "./postgres-rank-ahead.js";
import { headTerms, type PostgresTextHeadIndex } from "./postgres-text-head-index.js";
import type { SearchQuery } from "./search-port.js";

/**
 * The bounded total of a word ranked ahead (postgres-rank-ahead.ts: its records at the text version) in the pending queue
 * (record status pending, with or without the caller's response status pending), without reading its matches: the word's
 * records minus those of the completed head that hold it (counted in memory, postgres-text-head-index.ts), minus every
 * completed record outside the indexed head and every pending record the caller answered (either may hold the word). Exact
 * when those two are none, a lower bound otherwise, returned only when it exceeds `limit` ("10,000+"); `undecided` when it
 * cannot tell (the caller counts in SQL: totalAhead's bound is never above this one), null when the head index cannot answer. totalAhead (postgres-text-ahead.ts) subtracts every completed record instead: with the
 * 1M bench dataset's completed head of 33.5K records, a word in 2% (18.2K records) fell to the SQL count, the first
 * 10,001 passing rows through the word's GIN entry: 9,145 heap blocks, 135-175 ms at load 3-5.
 */
export async function headTotal(
  db: Kysely<DB>,
  query: SearchQuery,
  word: string,
  ahead: RankedAhead,
  limit: number,
  headIndex: PostgresTextHeadIndex | null | undefined,
): Promise<{ total: number; totalIsLowerBound?: true } | "undecided" | null> {
  const queue = queueFilters(query.filters);
  if (!headIndex || !queue || queue.statuses.length !== 1 || queue.statuses[0] !== "pending") return null;
  if (queue.pending && query.userId === null) return null;
  const b = new Builder(null);
  const dataset = b.p(query.datasetId);
  // The dataset's first record and first pending one, the word's lexeme and the caller's answered pending records, in one snapshot
  // with the text version (the ranking's and the head index's must be this one).
  const answered = queue.pending
    ? `(SELECT count(*) FROM responses s JOIN records r ON r.id = s.record_id WHERE s.user_id = ${b.p(query.userId)}
        AND r.dataset_id = ${dataset} AND r.status = 'pending')`
    : "0";
  const [[row], counts] = await Promise.all([
    queryRows<{
      version: number | string;
      first: number | string | null;
      pending_from: number | string | null;
      tree: string | null;
      answered: number | string;
    }>(
      db,
      `SELECT ${versionRecordsSql(dataset)}, (SELECT min(x.seq) FROM records x WHERE x.dataset_id = ${dataset}) AS first,
      ${firstWithStatusSql(dataset)} AS pending_from,
      querytree(plainto_tsquery('tessera_search', ${b.p(word)})) AS tree, ${answered} AS answered`,
      b.params,
    ),
    recordCounts(db, query.datasetId),
  ]);
  if (!row || Number(row.version) !== ahead.version || row.first === null || row.pending_from === null) return null;
  const terms = headTerms(row.tree);
  if (!terms || terms.length !== 1) return null;
  const first = Number(row.first);
  const head = headIndex.matches(query.datasetId, ahead.version, terms, null, first, Number(row.pending_from));
  if (!head) return null;
  // The records from `first` to `head.end` are the dataset's (the index holds a dataset with every seq of its range, at this
  // version) and all completed (before the first pending one): the completed records outside them are the counters' rest.
  const outside = Math.max(0, counts.completed - (head.end - first));
  const unknown = outside + Number(row.answered);
  const atLeast = ahead.records - head.seqs.length - unknown;
  if (atLeast > limit) return { total: limit, totalIsLowerBound: true };
  return unknown === 0 && atLeast >= 0 ? { total: atLeast } : "undecided";
}
