import type { Kysely } from "kysely";
import { sql } from "kysely";
import type { DB } from "../db/schema.js";
import { textRankingOf } from "./rank-extension.js";
import { readPoolFor } from "./sqlite-read-pool.js";

/** Datasets of fewer seqs have their deep reads' lengths read as before (a deep read needs more than ~1,000 matching records). */
export const ROW_LENGTHS_MIN_SEQS = 10_000;

/**
 * Has the read threads load their table of every FTS row's length (row-lengths.ts) over the large datasets' seqs when the
 * text index has settled (warm-up.ts): a plain word's deep read (sqlite-text-deep.ts) then reads its rows' lengths there
 * from its first call (1M records: ~260 ms of each thread's CPU once per index version, 60-100 -> 26-30 ms a half's
 * read). Does nothing without read threads or the ranking extension. The seqs lo..hi as returned, null when none.
 */
export async function loadRowLengthsFor(db: Kysely<DB>, minSeqs = ROW_LENGTHS_MIN_SEQS): Promise<{ lo: number; hi: number } | null> {
  const pool = readPoolFor(db);
  if (!pool || textRankingOf(db).scoring !== "tessera_bm25") return null;
  const spans = await sql<{
    lo: number | null;
    hi: number | null;
  }>`SELECT (SELECT min(seq) FROM records WHERE dataset_id = d.id) AS lo, (SELECT max(seq) FROM records WHERE dataset_id = d.id) AS hi FROM datasets d`.execute(
    db,
  );
  const large = spans.rows.filter((s): s is { lo: number; hi: number } => s.lo !== null && s.hi !== null && s.hi - s.lo + 1 >= minSeqs);
  if (large.length === 0) return null;
  const range = { lo: Math.min(...large.map((s) => s.lo)), hi: Math.max(...large.map((s) => s.hi)) };
  if (range.hi >= 2 ** 32) return null;
  await pool.loadRowLengths(range.lo, range.hi);
  return range;
}
