import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { queryRows } from "./postgres-sql.js";
import type { RankedAhead } from "./postgres-rank-ahead.js";

/**
 * Reads the word's list on (ahead.seqs) to its first `k` records at least (or all): the lookup read its first
 * RANKED_FIRST_READ (postgres-rank-ahead.ts), a deep page needs more. False when the list changed meanwhile (another version):
 * the caller ranks every match.
 */
export async function listedUpTo(db: Kysely<DB>, datasetId: string, word: string, ahead: RankedAhead, k: number): Promise<boolean> {
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
 * The records a page takes after the listed ones are the word's single occurrences (one occurrence in every field they are
 * in, scored as one): true when the list holds every record that repeats the word and is read to its end (listedUpTo),
 * false when it does not or changed meanwhile (the caller ranks every match).
 */
export async function singlesFollow(db: Kysely<DB>, datasetId: string, word: string, ahead: RankedAhead): Promise<boolean> {
  return ahead.repeated <= ahead.listed && (await listedUpTo(db, datasetId, word, ahead, ahead.listed));
}
