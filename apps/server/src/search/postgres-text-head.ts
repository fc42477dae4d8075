import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, queryRows } from "./postgres-sql.js";

/**
 * A completed head's whole windows of matches (postgres-text-walk.ts skipHead): the matches of `records_fts` rows that `where`
 * passes (the rows before the first pending record), in seq order, without their tsvectors' ranking, after the head's matches
 * known before them (`before`: those of postgres-text-head-index.ts, ascending, all before `where`'s rows); the last record
 * of their whole windows of `window` matches and how many matches those hold (`skipped`), or null when they hold less than
 * one window.
 */
export async function headWindows(
  db: Kysely<DB>,
  h: Builder,
  /** The condition on `records_fts f`'s rows: the query's match and the head's range (after `before`'s). */
  where: string,
  window: number,
  before: number[] = [],
): Promise<{ skipped: number; last: number } | null> {
  // One sorted array of the head's matching seqs, its element at the whole windows' end: the same answer as numbering them with
  // window functions (row_number, count over the sorted rows), ~10 ms less of PostgreSQL's time for a phrase's ~10K matches in a
  // head of 21.5K records (1M bench records, load 6: 20-44 against 31-55 ms, three phrases).
  const k = h.p(before.length);
  const rows = await queryRows<{ n: number | string | null; seq: number | string | null }>(
    db,
    `SELECT cardinality(m.a) AS n, m.a[((cardinality(m.a) + ${k}) / ${h.p(window)}) * ${h.p(window)} - ${k}] AS seq
      FROM (SELECT array_agg(DISTINCT f.record_seq ORDER BY f.record_seq) AS a FROM records_fts f WHERE ${where}) m`,
    h.params,
  );
  const row = rows[0];
  return wholeWindows(before, Number(row?.n ?? 0), row?.seq == null ? null : Number(row.seq), window);
}

/**
 * The whole windows of `window` matches among `before` (ascending) and `n` more after them, `seq` the match that ends them
 * when it is one of those `n`: their count and last match, null when they hold less than one window.
 */
export function wholeWindows(before: number[], n: number, seq: number | null, window: number): { skipped: number; last: number } | null {
  const skipped = Math.floor((before.length + n) / window) * window;
  if (skipped === 0) return null;
  const last = skipped > before.length ? seq : before[skipped - 1]!;
  return last === null ? null : { skipped, last };
}
