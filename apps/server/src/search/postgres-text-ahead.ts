import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { recordCounts } from "../records/counts.js";
import { Builder, queueFilters, queryRows, RECORD_STATUSES } from "./postgres-sql.js";
import type { RankedAhead } from "./postgres-rank-ahead.js";
import { type AheadPage, listedThenSingles } from "./postgres-text-ahead-listed.js";
import { pageWithin } from "./postgres-text-ahead-within.js";
import { singlesPage } from "./postgres-text-singles.js";
import { singlesBySeq } from "./postgres-text-singles-seq.js";
import type { SearchQuery } from "./search-port.js";

/**
 * Below this share of the dataset's records a word's records after the listed ones are found through its GIN
 * entry when a metadata filter is given (pageBySeq); a word in 17% took 7 ms by the walk, 248 ms through the GIN.
 */
const FEW_SHARE = 0.1;

/**
 * A text search of one plain word (no field) served from the word's ranking ahead
 * (postgres-rank-ahead.ts), with the answers of the plain ts_rank query: the records where the word
 * occurs at least twice in one field come first, in the stored order (listedPassing); then every other match by seq
 * (they all score one occurrence). Null when the stored records are not enough for the page (more
 * than RANKED_AHEAD repeat the word and too few of them pass the filters): the caller ranks every match.
 *
 * Three ways, by what the page is taken among: the caller's answered records (`options.within`: pageWithin); every record
 * of the dataset without filters, the single occurrences through `records_fts`'s buckets when its bucket index is valid
 * (pageThroughBuckets); otherwise the single occurrences by seq, with the filters (pageBySeq).
 */
export async function pageAhead(
  db: Kysely<DB>,
  query: SearchQuery,
  word: string,
  ahead: RankedAhead,
  /** The dataset's records when the caller read them (postgres-text.ts, with the text version). */
  records?: number,
  options: {
    /** `records_fts`'s bucket index is valid (postgres-text-buckets.ts): a page without filters reads its single occurrences there. */
    bucketIndex?: boolean;
    /**
     * Only these records (ascending seqs: the caller's answered records, postgres-answered-seqs.ts), tested here, not by a
     * filter of `query`: the listed records among them, then the single occurrences walked among them by seq.
     */
    within?: Float64Array;
  } = {},
): Promise<AheadPage> {
  if (query.limit === 0) return [];
  // A page past a list that is not every repeating record: the list cannot fill it (the caller ranks every match), known
  // before its 1,024 records are read and scored (~20 ms a page of the SDK iterating a word at 1M records).
  if (ahead.repeated > ahead.listed && query.offset + query.limit > ahead.listed) return null;
  if (options.within) return pageWithin(db, query, word, ahead, options.within, records);
  if (query.filters.length === 0 && options.bucketIndex) return pageThroughBuckets(db, query, word, ahead);
  return pageBySeq(db, query, word, ahead, records);
}

/**
 * A page without filters: the listed records (every one a record of the dataset), then the single occurrences through the
 * word's GIN entry in buckets of seqs (postgres-text-singles.ts), not the records before them.
 */
function pageThroughBuckets(db: Kysely<DB>, query: SearchQuery, word: string, ahead: RankedAhead): Promise<AheadPage> {
  return listedThenSingles(db, query, word, ahead, undefined, (n, skip) => singlesPage(db, query, word, ahead, n, skip));
}

/**
 * A page of the dataset's records with filters (or without, when the bucket index is not valid): the listed records that pass,
 * then the single occurrences that pass, the first records of the dataset that match, pass and are not listed, by seq
 * (singlesBySeq; through the word's GIN entry when the word is in few records and a metadata filter is given).
 */
function pageBySeq(db: Kysely<DB>, query: SearchQuery, word: string, ahead: RankedAhead, records?: number): Promise<AheadPage> {
  return listedThenSingles(db, query, word, ahead, undefined, async (n, skip) => {
    const few =
      query.filters.length > 0 &&
      !queueFilters(query.filters) &&
      ahead.records < FEW_SHARE * (records ?? (await recordCounts(db, query.datasetId)).total);
    const notListed = (b: Builder) => `NOT (r.seq = ANY(${b.p(`{${ahead.seqs.join(",")}}`)}::bigint[]))`;
    return (await singlesBySeq(db, query, word, notListed, n, skip, few)).slice(Math.max(0, skip));
  });
}

/**
 * The bounded total of a word ranked ahead, without reading its matches, when the filters are the
 * queue's (or none): the records that match it, minus those the filters may exclude (records of the
 * other statuses, from the dataset's counters; records the user answered). Exact when nothing is
 * excluded; a lower bound otherwise, enough when it exceeds `limit`. Null when it cannot tell: the
 * caller counts in SQL.
 */
export async function totalAhead(
  db: Kysely<DB>,
  query: SearchQuery,
  ahead: RankedAhead,
  limit: number,
): Promise<{ total: number; totalIsLowerBound?: true } | null> {
  const bounded = (n: number) => (n > limit ? { total: limit, totalIsLowerBound: true as const } : { total: n });
  if (query.filters.length === 0) return bounded(ahead.records);
  const queue = queueFilters(query.filters);
  if (!queue || (queue.pending && query.userId === null)) return null;
  if (queue.statuses.length === 0) return { total: 0 };
  const counts = await recordCounts(db, query.datasetId);
  let excluded = RECORD_STATUSES.filter((s) => !queue.statuses.includes(s)).reduce(
    (n, s) => n + (s === "pending" ? counts.pending : counts.completed),
    0,
  );
  if (queue.pending) {
    const b = new Builder(null);
    const answered = await queryRows<{ n: number | string }>(
      db,
      `SELECT count(*) AS n FROM responses s JOIN records r ON r.id = s.record_id WHERE s.user_id = ${b.p(query.userId)} AND r.dataset_id = ${b.p(query.datasetId)} AND r.status IN (${queue.statuses.map((s) => b.p(s)).join(", ")})`,
      b.params,
    );
    excluded += Number(answered[0]?.n ?? 0);
  }
  if (excluded === 0) return bounded(ahead.records);
  if (ahead.records - excluded > limit) return bounded(ahead.records - excluded);
  return null;
}
