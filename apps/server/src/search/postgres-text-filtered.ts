import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { recordCounts } from "../records/counts.js";
import { json, onSearchRows, queryRows, textCount, textWords } from "./postgres-sql.js";
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
 * A word in at least this share of the dataset's records is counted by the walk: ~1.5 µs a record at 1M
 * records (the filters, and the word for ~10% of them), 1,001 passing records of a ~10% filter in
 * 12K-23K records for words in 79% and 44% of them (20-35 ms), 59K for 17% (~90 ms, against ~80 ms
 * by the GIN path).
 */
const WALK_MIN_SHARE = 0.3;

/**
 * The bounded total of a text search of one plain word with filters other than the queue's (the
 * annotation page's metadata filters): the records passing them, exact up to `bound`
 * (FILTERED_TOTAL_BOUND, or the end of the page asked when further). For a word in at least
 * WALK_MIN_SHARE of the records (known from its ranking ahead), the dataset's `record_search` rows in
 * seq order, the filters first (the row's metadata, inline) and the word's tsvector only for rows
 * passing them (`CASE`, so that the out-of-line tsvector is read for ~10% of the rows), until
 * `bound + 1` pass, at most WALK_RECORDS records; otherwise (or when the walk did not decide) the
 * GIN path (postgres-sql.ts textCount), whose bitmaps of a common word and a common metadata term
 * cost more than the walk.
 */
export async function filteredTotal(
  db: Kysely<DB>,
  query: SearchQuery,
  ahead: RankedAhead | null,
  bound: number,
  options: { walkRecords?: number; walkMinShare?: number } = {},
): Promise<{ total: number; totalIsLowerBound?: true; path: "walk" | "index" }> {
  const bounded = (n: number, path: "walk" | "index") =>
    n > bound ? { total: bound, totalIsLowerBound: true as const, path } : { total: n, path };
  if (ahead && onSearchRows(query.filters)) {
    const { total } = await recordCounts(db, query.datasetId);
    if (total > 0 && ahead.records / total >= (options.walkMinShare ?? WALK_MIN_SHARE)) {
      // Metadata terms by containment on the row (Builder without `searchRows`): the terms array clause is for the GIN index.
      const walk = await walkCount(
        db,
        query,
        (b) =>
          `CASE WHEN ${cheapFirst(query.filters)
            .map((f) => b.filter(f))
            .join(" AND ")} THEN ts_match_vq(r.tsv, (${b.tsQuery(textWords(query.text!.q))})) ELSE false END`,
        bound,
        options.walkRecords ?? WALK_RECORDS,
        total,
      );
      if (walk.decided) return bounded(walk.n, "walk");
    }
  }
  // A common metadata term's GIN entry costs more than it saves: the word's entry alone, the terms on its rows.
  const { sql, params } = textCount(query, bound, false, !(await commonTerms(db, query.filters)));
  return bounded(Number((await queryRows<{ n: number | string }>(db, sql, params))[0]?.n ?? 0), "index");
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
