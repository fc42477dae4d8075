import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0017-text-search-changes.ts): a log of the writes that change what a
 * dataset's text search finds, for the ranked-match cache of search/postgres-search.ts. SQLite has
 * nothing to add: its text cache follows the FTS5 index's own structure records (search/sqlite-text.ts).
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
