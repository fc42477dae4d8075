import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0032-text-vocabulary.ts): the datasets' vocabularies for prefixes, shared by
 * the replicas. The embedded store lists a prefix's words from its FTS5 index: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
