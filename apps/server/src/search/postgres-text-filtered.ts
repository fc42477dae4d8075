import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { recordCounts } from "../records/counts.js";
import { Builder, json, onSearchRows, queryRows, SERIAL_PLAN, textCount, textMatchSql, textWords, type Param } from "./postgres-sql.js";
import { cheapFirst, walkCount } from "./postgres-filter-total.js";
import type { RankedAhead } from "./postgres-rank-ahead.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";

/**
 * Records counted at most by the total of a text search with filters other than the annotation
 * queue's (a metadata filter): beyond, `total` is this bound with `totalIsLowerBound` (docs/api.md).
 * At 1M records a common word with the ~10% metadata filter of the annotation page took 180 ms of
 * PostgreSQL's time to find 10,001 passing records, 80 ms for 1,001 (the two GIN bitmaps, the word's
 * and the metadata term's, are most of it), 20-35 ms by the walk below for the commonest words.
 */
export const FILTERED_TOTAL_BOUND = 1000;
/** Records of the dataset the walk reads at most (in seq order) before the GIN path counts instead. */
const WALK_RECORDS = 30_000;
/**
 * A word in at least this share of the dataset's records is counted by the walk: ~1.3 µs a record at 1M
 * records (the filters, and the word's out-of-line tsvector for the ~10% passing them, ~5 µs each). Reading
 * ~2,002 of a word's records costs ~15 ms this way at 17% (11.8K records), against ~50 ms by its GIN entry
 * (a bitmap of its 170K records, built whatever the LIMIT); at 6% ~44 ms against ~17 ms.
 */
const WALK_MIN_SHARE = 0.12;
/**
 * As the embedded store's bounded total (sqlite-text.ts READ_PER_BOUND): the count reads at most this many
 * times `bound + 1` of the word's records; when more match and at most `bound` pass among those, the total
 * is the records passing among them, as a lower bound (docs/api.md). At 1M records the annotation page's ~10%
 * filter passes ~200 of 2,002: the rows the count visits go from ~10,000 (each on its own page of
 * `record_search` by the GIN path, ~2.4 µs each) to 2,002.
 */
export const READ_PER_BOUND = 2;

/**
 * The bounded total of a text search of one plain word with filters other than the queue's (the
 * annotation page's metadata filters): the records passing them, exact up to `bound`
 * (FILTERED_TOTAL_BOUND, or the end of the page asked when further) while the count reads at most
 * READ_PER_BOUND x (`bound` + 1) of the word's records, else the records passing among those read with
 * `totalIsLowerBound`. For a word in at least WALK_MIN_SHARE of the records (known from its ranking
 * ahead), the dataset's `record_search` rows in seq order, the filters first (the row's metadata,
 * inline) and the word's tsvector only for rows passing them (`CASE`, so that the out-of-line tsvector
 * is read for ~10% of the rows), as many rows as hold ~that many of the word's records (its share).
 * Otherwise the GIN path: with a rare metadata term, the word's and the term's GIN entries together
 * (few records, postgres-sql.ts textCount), exact up to `bound`; else the word's GIN entry alone, its
 * first records read with the filters on each (readCount).
 */
export async function filteredTotal(
  db: Kysely<DB>,
  query: SearchQuery,
  ahead: RankedAhead | null,
  bound: number,
  options: {
    walkRecords?: number;
    walkMinShare?: number;
    readPerBound?: number;
    /** Migration 0031's index of `record_search`'s words and terms is valid (postgres-search.ts wordsTerms). */
    wordsTerms?: boolean;
    /** The dataset's records when the caller read them (postgres-text.ts, with the text version: one round trip less). */
    records?: number;
  } = {},
): Promise<{ total: number; totalIsLowerBound?: true; path: "walk" | "index" }> {
  const bounded = (n: number, path: "walk" | "index") =>
    n > bound ? { total: bound, totalIsLowerBound: true as const, path } : { total: n, path };
  const reads = (options.readPerBound ?? READ_PER_BOUND) * (bound + 1);
  const maxWalk = options.walkRecords ?? WALK_RECORDS;
  if (ahead && onSearchRows(query.filters)) {
    const total = options.records ?? (await recordCounts(db, query.datasetId)).total;
    const share = total > 0 ? ahead.records / total : 0;
    if (total > 0 && share >= (options.walkMinShare ?? WALK_MIN_SHARE)) {
      // The records holding ~`reads` of the word's (at most maxWalk).
      const walkRecords = Math.min(maxWalk, Math.max(1, Math.ceil(reads / share)));
      // Metadata terms by containment on the row (Builder without `searchRows`): the terms array clause is for the GIN index.
      const walk = await walkCount(
        db,
        query,
        (b) =>
          `CASE WHEN ${cheapFirst(query.filters)
            .map((f) => b.filter(f))
            .join(" AND ")} THEN ts_match_vq(r.tsv, (${b.tsQuery(textWords(query.text!.q))})) ELSE false END`,
        bound,
        walkRecords,
        total,
      );
      if (walk.decided) return bounded(walk.n, "walk");
      // Its share of the word's records read, fewer than `bound + 1` passing: those, as a lower bound.
      if (walkRecords < maxWalk) return { total: walk.n, totalIsLowerBound: true, path: "walk" };
    }
  }
  const termsFilters = query.filters.filter(indexedTerms);
  // Migration 0031's index of the words and terms together: one GIN scan gives the records holding both, whatever
  // the term's share (the filters' other parts on those rows only).
  // At most `reads` of those, as the word's records otherwise: 4 x (bound + 1) answered "1,000+" more often than "~800+",
  // but cost 12% more of PostgreSQL's CPU per call at 1M (37.8 against 33.6 ms; at pace p95 835 against 289 ms).
  if (options.wordsTerms && termsFilters.length > 0 && onSearchRows(query.filters)) return readTotal(db, query, reads, bound, true);
  // A rare metadata term: the word's and the term's GIN entries together give few records, most of which pass.
  if (termsFilters.length > 0 && !(await commonTerms(db, query.filters))) {
    const { sql: text, params } = textCount(query, bound);
    return bounded(Number((await queryRows<{ n: number | string }>(db, text, params))[0]?.n ?? 0), "index");
  }
  // A common metadata term's GIN entry costs more than it saves: the word's entry alone, the filters on its first records.
  return readTotal(db, query, reads, bound, false);
}

/**
 * The bounded total from the word's first `reads` + 1 records (readCount) through the GIN index: exact up to `bound`
 * when at most `reads` match, else the records passing among those read as a lower bound.
 */
async function readTotal(
  db: Kysely<DB>,
  query: SearchQuery,
  reads: number,
  bound: number,
  termsIndex: boolean,
): Promise<{ total: number; totalIsLowerBound?: true; path: "index" }> {
  const { sql: text, params } = readCount(query, reads, bound, termsIndex);
  type Row = { read: number | string; n: number | string };
  // Through the GIN index: the planner's sequential scan (or walk of the primary key) for the LIMIT reads each
  // row's out-of-line tsvector instead (1M records, a word in 6%: 157-171 ms of PostgreSQL's CPU, 16 ms this way at 2%).
  // With the words and terms together in one index entry (0031) the planner takes it unasked (1M bench records, words in 1-12%
  // of the records and `source` = news: a bitmap heap scan of 1,576-1,931 blocks, as with the settings): one statement instead
  // of four (the transaction, the settings), round trips a call waits for behind 50 annotators' calls.
  const row = termsIndex
    ? (await queryRows<Row>(db, text, params))[0]
    : await db.transaction().execute(async (trx) => {
        await sql.raw("SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)").execute(trx);
        return (await queryRows<Row>(trx, text, params))[0];
      });
  const n = Number(row?.n ?? 0);
  if (n > bound) return { total: bound, totalIsLowerBound: true, path: "index" };
  if (Number(row?.read ?? 0) <= reads) return { total: n, path: "index" };
  return { total: n, totalIsLowerBound: true, path: "index" };
}

/** A metadata terms filter whose values the `terms` GIN entries hold (Builder.terms: scalar values). */
const indexedTerms = (f: SearchFilter): boolean =>
  f.type === "terms" &&
  f.scope.entity === "metadata" &&
  f.values.every((v) => v === null || ["string", "number", "boolean"].includes(typeof v));

/**
 * The first `reads` + 1 records of the dataset that match a text query (in the order the GIN index gives
 * them), as `read`, and how many of them pass the filters, `n`: both stop at the record where `bound` + 2
 * have passed (the window's run condition ends the scan there), so `n` > `bound` tells "more than the bound".
 * A serial plan (SERIAL_PLAN): at 1M bench records PostgreSQL planned a parallel bitmap heap scan for a word in 6-10%
 * of the records with the annotation page's filters, whose two workers cost ~15 ms of CPU a call more (the leader's the
 * same) and gave the first records in their own order, a lower bound that changed from call to call (980-984).
 * `termsIndex`: the metadata terms filters in the index scan (migration 0031's index of words and terms: only
 * the records holding both are read), else on each record read like the other filters.
 */
export function readCount(query: SearchQuery, reads: number, bound: number, termsIndex = false): { sql: string; params: Param[] } {
  const rows = onSearchRows(query.filters);
  const b = new Builder(query.userId, rows && termsIndex);
  const match = textMatchSql(b, query, rows);
  const inIndex = (f: SearchFilter) => rows && termsIndex && indexedTerms(f);
  const where = [...match.where, ...query.filters.filter(inIndex).map((f) => b.filter(f))];
  const pass = cheapFirst(query.filters.filter((f) => !inIndex(f)))
    .map((f) => b.filter(f))
    .join(" AND ");
  return {
    sql: `SELECT count(*) AS read, coalesce(max(w.n), 0) AS n, ${SERIAL_PLAN} AS serial FROM (
        SELECT count(*) FILTER (WHERE m.pass) OVER (ROWS UNBOUNDED PRECEDING) AS n FROM (
          SELECT ${pass || "true"} AS pass FROM ${match.from} WHERE ${where.join(" AND ")} LIMIT ${b.p(reads + 1)}) m) w
      WHERE w.n <= ${b.p(bound + 1)}`,
    params: b.params,
  };
}

/** A metadata term filter's values in at least this share of `record_search`'s rows make it common (commonTerms). */
const COMMON_TERM_SHARE = 0.05;

/**
 * Whether every metadata terms filter among `filters` (at least one) keeps a common share of the records
 * (COMMON_TERM_SHARE, from the planner's statistics of `record_search.terms`: its most common elements).
 * ANDing the bitmap of such a term (a `source` in 20% of 1M records) with a word's cost more than checking
 * the term on the word's rows: at 1M records, the bounded total of a word in 17%, 6% and 2% of the records with
 * the annotation page's ~10% filter took 70, 58 and 44 ms of PostgreSQL's CPU with both bitmaps, 60, 34 and 30
 * ms with the word's alone (load 14). A rarer term (not among the statistics' common elements) keeps its bitmap.
 */
export async function commonTerms(db: Kysely<DB>, filters: SearchFilter[]): Promise<boolean> {
  const terms = filters.filter((f) => f.type === "terms" && f.scope.entity === "metadata");
  if (terms.length === 0) return false;
  for (const f of terms) {
    if (f.type !== "terms" || f.scope.entity !== "metadata") continue;
    // The filter's terms once (an InitPlan): as a plain expression they were computed again for each of the ~1,000 common
    // elements (jsonb_build_object is not immutable, so not folded): 13-22 ms of PostgreSQL's CPU a call at 1M, now ~2 ms.
    const rows = await queryRows<{ share: number | string | null }>(
      db,
      `SELECT sum(e.freq) AS share FROM pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS e(elem, freq)
        WHERE s.schemaname = current_schema() AND s.tablename = 'record_search' AND s.attname = 'terms'
          AND e.elem = ANY((SELECT tessera_metadata_terms(jsonb_build_object($1::text, $2::jsonb)))::text[])`,
      [f.scope.name, json(f.values)],
    );
    if (Number(rows[0]?.share ?? 0) < COMMON_TERM_SHARE) return false;
  }
  return true;
}
