import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0041-dataset-response-counts.ts): the responses of each (dataset, user, status) kept by
 * triggers. The embedded store counts the caller's responses as before: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
