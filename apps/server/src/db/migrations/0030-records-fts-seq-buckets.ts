import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0030-records-fts-seq-buckets.ts): `records_fts`'s GIN index also holds
 * each row's range of records. SQLite's FTS5 index reads its matches in record order already: nothing
 * to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
