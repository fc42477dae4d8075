import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { SearchQuery } from "./search-port.js";
import { Builder, queryRows, textWords } from "./postgres-sql.js";
import { wordsSignatureCondition } from "./postgres-vector-words.js";

/**
 * Similarity with a text query on PostgreSQL (issue 31). The plain statement ranked every match of the word with
 * ts_rank and joined them all with their vectors before the page (1M bench records, most similar + a word in 17% of
 * the records: 20.9 s in EXPLAIN ANALYZE, 169K matches, 1.3M buffers; the probe's p95 3.9 s). A similarity page is in
 * vector order, so the text only decides which records pass: it is tested per candidate (textCondition) as the filters
 * are, and the page taken one of two ways (vectorTextPlan):
 * - many matches: the IVFFlat index's candidates in vector order, each tested, the iterative scan going on to further
 *   lists (up to textMaxProbes) until the page is full (the same word: 8-33 ms warm);
 * - few matches (the planner's estimate from the column's statistics), or the page not full after textMaxProbes:
 *   every match ranked by its exact distance (the plain statement's answer), whose cost grows with the matches.
 */

/** How many times the order's probes the iterative scan may read for a text query before the exact ranking takes over. */
export const TEXT_PROBES_FACTOR = 4;

/** The lists a similarity search with text probes at most (its probes, times TEXT_PROBES_FACTOR, at most every list). */
export function textMaxProbes(probes: number, lists: number): number {
  return Math.max(probes, Math.min(lists, probes * TEXT_PROBES_FACTOR));
}

/**
 * The text of a query as a condition on one record `r` (a `records` row): every word in one of its fields (one
 * lexeme: in its words, record_search's narrow row; else, or with a field, in one field's row of records_fts),
 * as the text CTE of the plain statement matches. null: no word (nothing matches). The vector's word signature first
 * (postgres-vector-words.ts), on the candidate's own row: at 1M bench records the tsvector test read `records` and
 * `record_search` with its TOAST for each of ~300-700 candidates (150-230 of 230-280 ms, mostly blocks not in shared
 * buffers); with the signature only the ~7% that match and ~9% false positives do.
 */
export function textCondition(b: Builder, text: NonNullable<SearchQuery["text"]>): string | null {
  const words = textWords(text.q);
  if (words.length === 0) return null;
  const tsq = b.tsQuery(words);
  const field = text.field !== null ? ` AND f.field = ${b.p(text.field)}` : "";
  const inFields = `EXISTS (SELECT 1 FROM records_fts f WHERE f.record_seq = x.seq AND f.tsv @@ (${tsq})${field})`;
  const signature = wordsSignatureCondition(b, words);
  return `${signature ? `${signature} AND ` : ""}EXISTS (SELECT 1 FROM record_search x WHERE x.seq = r.seq AND x.tsv @@ (${tsq}) AND ${field ? inFields : `(numnode(${tsq}) = 1 OR ${inFields})`})`;
}

/**
 * Whether the IVFFlat candidates should come first: the records the planner expects the text to match (its
 * statistics of record_search's words, one EXPLAIN without running it: ~1 ms) would put at least twice the page's
 * candidates in the lists probed up to textMaxProbes. Else the matches are ranked exactly (a word in 0.2% of 1M
 * records: ~2,000 distances).
 */
export async function candidatesFirst(
  db: Kysely<DB>,
  query: SearchQuery,
  options: { lists: number; maxProbes: number; candidates: number },
): Promise<boolean> {
  const words = textWords(query.text!.q);
  if (words.length === 0) return false;
  const b = new Builder(null);
  const dataset = b.p(query.datasetId);
  const tsq = b.tsQuery(words);
  const plan = await queryRows<{ "QUERY PLAN": unknown }>(
    db,
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM record_search x WHERE x.dataset_id = ${dataset} AND x.tsv @@ (${tsq})`,
    b.params,
  );
  // The plan is json, which the store's connections may hand over as text.
  const raw = plan[0]?.["QUERY PLAN"];
  const parsed = (typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan?: { "Plan Rows"?: number } }] | undefined;
  const matches = Number(parsed?.[0]?.Plan?.["Plan Rows"] ?? 0);
  return (matches * options.maxProbes) / Math.max(1, options.lists) >= 2 * options.candidates;
}
