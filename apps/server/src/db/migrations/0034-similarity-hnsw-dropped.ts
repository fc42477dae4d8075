import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0034-similarity-hnsw-dropped.ts): the HNSW indexes of similarity dropped where an
 * IVFFlat index serves. The embedded store keeps its similarity structures in memory: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
