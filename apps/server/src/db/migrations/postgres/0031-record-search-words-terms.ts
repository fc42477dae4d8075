import { type Kysely, sql } from "kysely";

/**
 * `record_search`'s words and metadata terms in ONE GIN index, `(tsv, terms)`, replacing 0025's two (one on
 * `tsv`, one on `terms`). A text search with a metadata terms filter (the annotation page's `source` = one
 * of 5) then finds the records holding both in one index scan: GIN walks the two entries together and
 * hands only the records in both to the bitmap, where two indexes built a bitmap of each (a `source` in
 * 20% of 1M records: 200K entries, ~34 ms) and ANDed them. Queries on the words alone or on the terms
 * alone read this index as they read the old ones (GIN reads the entries of the columns a query names),
 * and an insert adds the same entries as before.
 *
 * Here only on an empty `record_search` (a new database: no time). A table with rows gets the index from
 * the server in the background (search/postgres-background-index.ts, as 0030's: `CREATE INDEX CONCURRENTLY`,
 * writes go on; the two old indexes serve until the new one is valid, then are dropped).
 */
/** The index on (words, metadata terms); the server's background build (search/postgres-search.ts wordsTerms) makes the same. */
export const WORDS_TERMS_INDEX = "record_search_tsv_terms_gin";
/** 0025's indexes of the words and of the terms, which it replaces. */
export const REPLACED_INDEXES = ["record_search_tsv_gin", "record_search_terms_gin"];
export const WORDS_TERMS_INDEX_SQL = "USING gin (tsv, terms)";
/** What the server builds in the background on a table with rows (search/postgres-background-index.ts). */
export const WORDS_TERMS_INDEX_SPEC = {
  index: WORDS_TERMS_INDEX,
  table: "record_search",
  definition: WORDS_TERMS_INDEX_SQL,
  replaces: REPLACED_INDEXES,
  what: "the index of record_search's words and metadata terms",
};

export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ any: number }>`select 1 as any from record_search limit 1`.execute(db);
  if (rows.length > 0) return;
  await sql.raw(`create index ${WORDS_TERMS_INDEX} on record_search ${WORDS_TERMS_INDEX_SQL}`).execute(db);
  for (const old of REPLACED_INDEXES) await sql.raw(`drop index if exists ${old}`).execute(db);
}
