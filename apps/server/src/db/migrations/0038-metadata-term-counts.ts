import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0038-metadata-term-counts.ts): the counts of a terms property's values kept by
 * triggers. The embedded store keeps its own (records/metadata-metrics.ts): nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
