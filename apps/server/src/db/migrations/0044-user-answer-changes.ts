import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0044-user-answer-changes.ts): the records each version of a user's answered records
 * changed, which the PostgreSQL text search brings its kept answered records up to date with. The embedded store reads
 * its answered records in memory from its own file: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
