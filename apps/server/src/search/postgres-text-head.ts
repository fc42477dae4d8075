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
  const rows = await queryRows<{ seq: number | string; i: number | string }>(
    db,
    `SELECT t.seq, t.i FROM (SELECT m.seq, row_number() OVER (ORDER BY m.seq) AS i, count(*) OVER () AS c FROM (
        SELECT DISTINCT f.record_seq AS seq FROM records_fts f WHERE ${where}) m) t
      WHERE t.i = (t.c / ${h.p(window)}) * ${h.p(window)}`,
    h.params,
  );
  return rows[0] ? { skipped: Number(rows[0].i), last: Number(rows[0].seq) } : null;
}
