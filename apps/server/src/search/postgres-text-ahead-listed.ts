import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, onSearchRows, queryRows } from "./postgres-sql.js";
import type { RankedAhead } from "./postgres-rank-ahead.js";
import { listedUpTo, singlesFollow } from "./postgres-text-ahead-list.js";
import { scored } from "./postgres-text-scored.js";
import { sortedHas } from "./sorted-array.js";
import type { SearchQuery } from "./search-port.js";

/** A record on a page's way: its seq, id and score (null before the page's offset: not scored; id "" where not read). */
export interface Passing {
  seq: number;
  id: string;
  score: number | null;
}

/**
 * The first step of every page of a word ranked ahead (pageAhead, postgres-text-ahead.ts): the first records of the word's
 * list (the records that repeat it, best first) that pass the query's filters and, given `within`, are among those ascending
 * seqs, in the list's order, up to the page's end (fewer when the list has fewer), scored from the page's offset on (scored,
 * from the list's occurrence counts when it has them: migration 0040). Null when the list changed meanwhile (listedUpTo): the
 * caller ranks every match.
 *
 * The list is read a prefix at a time (reading 1,024 records costs ~15 ms), grown by the observed pass rate. Without filters nor
 * `within` every listed record is on the page's way (a record of the dataset at the list's version): those before the offset
 * are skipped, not read (placeholders), and the page's own are enough (a record deleted since the list's version: read on).
 * With `within` and no filter left every record of `within` passes: the list is read on (4 times as far) until it holds the
 * page's, without a statement.
 */
export async function listedPassing(
  db: Kysely<DB>,
  query: SearchQuery,
  word: string,
  ahead: RankedAhead,
  within?: Float64Array,
): Promise<Passing[] | null> {
  const need = query.offset + query.limit;
  let passing: Passing[] = [];
  let done = 0;
  const unfiltered = query.filters.length === 0 && !within;
  if (unfiltered) {
    done = Math.min(query.offset, ahead.listed);
    passing = Array.from({ length: done }, () => ({ seq: 0, id: "", score: null }));
  }
  // The filters on `record_search`'s narrow rows when they read nothing else (by primary key; no terms clause, see Builder).
  const table = onSearchRows(query.filters) ? "record_search" : "records";
  for (let k = unfiltered ? need : Math.max(64, need * 3 + 32); done < ahead.listed;) {
    if (!(await listedUpTo(db, query.datasetId, word, ahead, k))) return null;
    const read = Math.min(k, ahead.seqs.length);
    // The candidates' occurrence counts when the list has them (migration 0040): the page scored without its tsvectors.
    const counted = ahead.counts && ahead.counts.length >= read;
    const at = [];
    for (let i = done; i < read; i++) if (!within || sortedHas(within, ahead.seqs[i]!)) at.push(i);
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
  return passing.slice(0, need);
}

/** A page of a word ranked ahead as the search answers it; null when the ranking ahead cannot give it (the caller ranks every match). */
export type AheadPage = { recordId: string; score: number }[] | null;

/**
 * A page of a word ranked ahead in its two steps: the listed records that pass (listedPassing), then, when they do not reach
 * the page's end, the single occurrences after them (every record not listed has one occurrence in each field it is in) that
 * `singles` gives: `n` of them counted from the first, those from the `skip`-th on returned (those on the page; `skip` below
 * 0: every one), once the list is known to hold every record that repeats the word and is read to its end (singlesFollow).
 * Null when a step cannot give the page: the caller ranks every match.
 */
export async function listedThenSingles(
  db: Kysely<DB>,
  query: SearchQuery,
  word: string,
  ahead: RankedAhead,
  within: Float64Array | undefined,
  singles: (n: number, skip: number) => Promise<{ id: string | null; score: number | null }[] | null>,
): Promise<AheadPage> {
  const need = query.offset + query.limit;
  const passing = await listedPassing(db, query, word, ahead, within);
  if (!passing) return null;
  let found: { id: string | null; score: number | null }[] | null = [];
  if (passing.length < need) {
    if (!(await singlesFollow(db, query.datasetId, word, ahead))) return null;
    found = await singles(need - passing.length, query.offset - passing.length);
    if (!found) return null;
  }
  return [...passing.slice(query.offset), ...found].map((p) => ({ recordId: p.id ?? "", score: p.score ?? 0 }));
}
