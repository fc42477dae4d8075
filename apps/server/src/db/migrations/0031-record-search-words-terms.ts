import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0031-record-search-words-terms.ts): `record_search`'s words and metadata
 * terms in one GIN index. The embedded store has no `record_search` (its metadata filters run on in-memory
 * columns): nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
