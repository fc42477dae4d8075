import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, queryRows } from "./postgres-sql.js";

/**
 * A completed head's whole windows of matches (postgres-text-walk.ts skipHead): the matches of `records_fts` rows that `where`
 * passes (the rows before the first pending record), in seq order, without their tsvectors' ranking; the last record of their
 * whole windows of `window` matches and how many matches those hold (`skipped`), or null when they hold less than one window.
 */
export async function headWindows(
  db: Kysely<DB>,
  h: Builder,
  /** The condition on `records_fts f`'s rows: the query's match and the head's range. */
  where: string,
  window: number,
): Promise<{ skipped: number; last: number } | null> {
  // One sorted array of the head's matching seqs, its element at the whole windows' end: the same answer as numbering them with
  // window functions (row_number, count over the sorted rows), ~10 ms less of PostgreSQL's time for a phrase's ~10K matches in a
  // head of 21.5K records (1M bench records, load 6: 20-44 against 31-55 ms, three phrases).
  const rows = await queryRows<{ seq: number | string | null; i: number | string | null }>(
    db,
    `SELECT m.a[(cardinality(m.a) / ${h.p(window)}) * ${h.p(window)}] AS seq, (cardinality(m.a) / ${h.p(window)}) * ${h.p(window)} AS i
      FROM (SELECT array_agg(DISTINCT f.record_seq ORDER BY f.record_seq) AS a FROM records_fts f WHERE ${where}) m`,
    h.params,
  );
  const row = rows[0];
  return row && row.seq !== null && Number(row.i) > 0 ? { skipped: Number(row.i), last: Number(row.seq) } : null;
}
