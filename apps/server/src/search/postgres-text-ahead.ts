import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { recordCounts } from "../records/counts.js";
import { Builder, onSearchRows, queueFilters, queryRows, RECORD_STATUSES, textMatchSql } from "./postgres-sql.js";
import { occurrenceScoreSql } from "./postgres-occurrence-score.js";
import { singlesPage } from "./postgres-text-singles.js";
import { sortedHas } from "./sorted-array.js";
import type { RankedAhead } from "./postgres-rank-ahead.js";
import type { SearchQuery } from "./search-port.js";

/**
 * Below this share of the dataset's records a word's records after the listed ones are found through its GIN
 * entry when a metadata filter is given (pageAhead); a word in 17% took 7 ms by the walk, 248 ms through the GIN.
 */
const FEW_SHARE = 0.1;

/**
 * A text search of one plain word (no field) served from the word's ranking ahead
 * (postgres-rank-ahead.ts), with the answers of the plain ts_rank query: the records where the word
 * occurs at least twice in one field come first, in the stored order; then every other match by seq
 * (they all score one occurrence). Null when the stored records are not enough for the page (more
 * than RANKED_AHEAD repeat the word and too few of them pass the filters): the caller ranks every match.
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
): Promise<{ recordId: string; score: number }[] | null> {
  const { bucketIndex = false, within } = options;
  const need = query.offset + query.limit;
  if (query.limit === 0) return [];
  // A page past a list that is not every repeating record: the list cannot fill it (the caller ranks every match), known
  // before its 1,024 records are read and scored (~20 ms a page of the SDK iterating a word at 1M records).
  if (ahead.repeated > ahead.listed && need > ahead.listed) return null;
  // The listed records, a prefix at a time (reading 1,024 records costs ~15 ms): grown by the observed pass rate.
  let passing: { seq: number; id: string; score: number | null }[] = [];
  // Without filters every listed record is on the page's way (a record of the dataset at the list's version): those before
  // the offset are skipped, not read.
  let done = 0;
  const unfiltered = query.filters.length === 0 && !within;
  if (unfiltered) {
    done = Math.min(query.offset, ahead.listed);
    passing = Array.from({ length: done }, () => ({ seq: 0, id: "", score: null }));
  }
  // The filters on `record_search`'s narrow rows when they read nothing else (by primary key; no terms clause, see Builder).
  const table = onSearchRows(query.filters) ? "record_search" : "records";
  // Without filters the page's own records are enough (a record deleted since the list's version: the loop reads on).
  for (let k = unfiltered ? need : Math.max(64, need * 3 + 32); done < ahead.listed;) {
    if (!(await listedUpTo(db, query.datasetId, word, ahead, k))) return null;
    const read = Math.min(k, ahead.seqs.length);
    // The candidates' occurrence counts when the list has them (migration 0040): the page scored without its tsvectors.
    const counted = ahead.counts && ahead.counts.length >= read;
    const at = [];
    for (let i = done; i < read; i++) if (!within || sortedHas(within, ahead.seqs[i]!)) at.push(i);
    // Every record of `within` passes when no filter is left: the list read on (4 times as far) until it holds the page's.
    if (within && query.filters.length === 0 && at.length < need - passing.length && read < ahead.listed) {
      k = read * 4;
      continue;
    }
    const candidates = at.map((i) => ahead.seqs[i]!);
    const counts = counted ? at.map((i) => ahead.counts![i]!) : null;
    if (candidates.length === 0) {
      done = read;
      k = done * 4;
      continue;
    }
    const b = new Builder(query.userId);
    const where = [`r.dataset_id = ${b.p(query.datasetId)}`];
    for (const f of query.filters) where.push(b.filter(f));
    const listed = counts
      ? `unnest(${b.p(`{${candidates.join(",")}}`)}::bigint[], ${b.p(`{${counts.join(",")}}`)}::int[]) WITH ORDINALITY c(seq, occ, i)`
      : `unnest(${b.p(`{${candidates.join(",")}}`)}::bigint[]) WITH ORDINALITY c(seq, i)`;
    // The first passing in the list's order, those the page still needs, scored (after the LIMIT: only those).
    const rows = await queryRows<{ seq: number | string; id: string; score: number | null }>(
      db,
      scored(
        b,
        word,
        `SELECT r.seq AS seq, r.id AS id, c.i AS ord${counts ? ", c.occ AS occ" : ""} FROM ${listed}
          JOIN ${table} r ON r.seq = c.seq WHERE ${where.join(" AND ")} ORDER BY c.i LIMIT ${b.p(need - passing.length)}`,
        query.offset - passing.length,
        counts !== null,
      ),
      b.params,
    );
    for (const r of rows) passing.push({ seq: Number(r.seq), id: r.id, score: r.score });
    done = read;
    if (passing.length >= need) break;
    const rate = Math.max(passing.length, 1) / done;
    k = done + Math.max(done * 3, Math.ceil(((need - passing.length) / rate) * 1.5));
  }
  passing = passing.slice(0, need);
  if (passing.length < need) {
    if (ahead.repeated > ahead.listed || !(await listedUpTo(db, query.datasetId, word, ahead, ahead.listed))) return null;
    // Without filters: through the word's GIN entry in buckets of seqs (postgres-text-singles.ts), not the records before them.
    if (query.filters.length === 0 && !within && bucketIndex) {
      const found = await singlesPage(db, query, word, ahead, need - passing.length, query.offset - passing.length);
      if (!found) return null;
      return [...passing.slice(query.offset), ...found].map((p) => ({ recordId: p.id ?? "", score: p.score ?? 0 }));
    }
    // The single occurrences, by seq: the first records of the dataset that match, pass and are not listed.
    // The records the word's GIN entry gives (record_search, migration 0025), the filters' narrow rows when they allow.
    const rows = onSearchRows(query.filters);
    const single = async (b: Builder, among: string) => {
      const match = textMatchSql(b, query, rows);
      const where = [...match.where, among, ...query.filters.map((f) => b.filter(f))];
      // A word in few records with filters other than the queue's (a metadata filter): in seq order through the GIN
      // entries (`r.seq + 0`), not by the planner's walk of record_search_pkey, which checks the word on each row's
      // out-of-line tsvector (1M records, a word in 6% and the ~10% filter: 304K buffers, 572 ms; 150 ms this way).
      const few =
        !within &&
        query.filters.length > 0 &&
        !queueFilters(query.filters) &&
        ahead.records < FEW_SHARE * (records ?? (await recordCounts(db, query.datasetId)).total);
      // Each of them has one occurrence in every field it is in (the list holds every record with more): scored as one.
      const found = await queryRows<{ seq: number | string; id: string; score: number | null }>(
        db,
        scored(
          b,
          word,
          `SELECT r.seq AS seq, r.id AS id, r.seq AS ord, 1 AS occ FROM ${match.from} WHERE ${where.join(" AND ")} ORDER BY r.seq${few ? " + 0" : ""} LIMIT ${b.p(need - passing.length)}`,
          query.offset - passing.length,
          true,
        ),
        b.params,
      );
      for (const r of found) passing.push({ seq: Number(r.seq), id: r.id, score: r.score });
    };
    if (!within) {
      const b = new Builder(query.userId, rows);
      await single(b, `NOT (r.seq = ANY(${b.p(`{${ahead.seqs.join(",")}}`)}::bigint[]))`);
    } else {
      // Among `within` (not listed) in seq order, a part at a time: as many as should hold the records still needed (the
      // word's share of the dataset's records, 3 times over), 4 times more each time (a constant array of 34K seqs costs
      // ~7-15 ms to plan); each part by primary key in order, the word tested on each.
      const listed = new Set(ahead.seqs);
      const rest = Array.from(within).filter((seq) => !listed.has(seq));
      const share = ahead.records / Math.max(records ?? (await recordCounts(db, query.datasetId)).total, 1);
      let size = Math.ceil(((need - passing.length) / Math.max(share, 1e-3)) * 3) + 64;
      for (let from = 0; passing.length < need && from < rest.length; from += size, size *= 4) {
        const b = new Builder(query.userId, rows);
        await single(b, `r.seq = ANY(${b.p(`{${rest.slice(from, from + size).join(",")}}`)}::bigint[])`);
      }
    }
  }
  return passing.slice(query.offset, need).map((p) => ({ recordId: p.id, score: p.score ?? 0 }));
}

/**
 * Reads the word's list on (ahead.seqs) to its first `k` records at least (or all): the lookup read its first
 * RANKED_FIRST_READ (postgres-rank-ahead.ts), a deep page needs more. False when the list changed meanwhile (another version):
 * the caller ranks every match.
 */
async function listedUpTo(db: Kysely<DB>, datasetId: string, word: string, ahead: RankedAhead, k: number): Promise<boolean> {
  const want = Math.min(k, ahead.listed);
  if (ahead.seqs.length >= want) return true;
  // At least 4 times those read: a few statements for the SDK iterating the whole list.
  const upTo = Math.min(ahead.listed, Math.max(want, 4 * ahead.seqs.length));
  const from = ahead.seqs.length;
  const rows = await queryRows<{ seqs: (number | string)[]; counts: number[] | null }>(
    db,
    `SELECT seqs[$3:$4] AS seqs, counts[$3:$4] AS counts FROM text_ranked_ahead
      WHERE dataset_id = $1 AND word = querytree(plainto_tsquery('tessera_search', $2)) AND version = $5`,
    [datasetId, word, from + 1, upTo, ahead.version],
  );
  if (!rows[0]) return false;
  // Another page of the same cached word read on meanwhile: its records are there already.
  if (ahead.seqs.length !== from) return ahead.seqs.length >= want || listedUpTo(db, datasetId, word, ahead, k);
  // The counts in step with the seqs, or none (a list counted since the first read: its earlier counts are not read).
  const counts = rows[0].counts;
  if (ahead.counts && counts && ahead.counts.length === ahead.seqs.length) ahead.counts.push(...counts);
  else ahead.counts = null;
  for (const seq of rows[0].seqs) ahead.seqs.push(Number(seq));
  return ahead.seqs.length >= want;
}

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
