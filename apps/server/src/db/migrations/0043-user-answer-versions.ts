import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0043-user-answer-versions.ts): a version of each user's answered records, which the
 * PostgreSQL text search keeps the caller's answered records under. The embedded store reads its answered records in
 * memory from its own file: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
