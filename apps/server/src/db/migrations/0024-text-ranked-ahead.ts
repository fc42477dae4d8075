import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0024-text-ranked-ahead.ts): the frequent words of a dataset's text
 * search ranked ahead, in tables the replicas share. SQLite ranks its frequent words ahead in memory
 * (search/sqlite-text.ts `rankFrequentWords`): nothing to add here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
