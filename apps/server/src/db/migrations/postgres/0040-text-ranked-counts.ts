import { type Kysely, sql } from "kysely";

/**
 * `text_ranked_ahead.counts`: beside each listed record of a word ranked ahead (`seqs`, 0024), the number of the word's
 * occurrences in the record's best field (the list's order: most occurrences, then seq). A one-lexeme ts_rank is a
 * function of that number only (search/postgres-rank-ahead.ts), so a page of the list is scored from it
 * (search/postgres-occurrence-score.ts) instead of from its records' tsvectors: the SDK's page of 256 at offset 2,560
 * of a frequent word at 1M records read and scored 256 records' tsvectors, ~54 + 32 ms of PostgreSQL.
 *
 * NULL for the lists ranked before: a search scores those from the tsvectors as before, and the ranking's background
 * job fills them at the same version (search/postgres-rank-longer.ts, one pass over the dataset's tsvectors). A list of
 * no record gets its empty counts here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table text_ranked_ahead add column counts smallint[]`.execute(db);
  await sql`update text_ranked_ahead set counts = '{}' where cardinality(seqs) = 0`.execute(db);
}
