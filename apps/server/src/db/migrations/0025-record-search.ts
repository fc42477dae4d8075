import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0025-record-search.ts): one narrow row per record with what a text
 * search's bounded total filters on. SQLite counts from its in-memory columns (search/sqlite-text.ts):
 * nothing to add here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
