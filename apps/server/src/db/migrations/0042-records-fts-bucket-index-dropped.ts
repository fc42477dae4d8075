import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0042-records-fts-bucket-index-dropped.ts): `records_fts`'s bucket index dropped, the
 * index with the fields' names serving its lookups. The embedded store has neither: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
