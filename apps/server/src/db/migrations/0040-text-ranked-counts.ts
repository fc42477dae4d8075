import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0040-text-ranked-counts.ts): the occurrence counts of the words ranked ahead. The
 * embedded store keeps its own ranking in the text index's file: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
