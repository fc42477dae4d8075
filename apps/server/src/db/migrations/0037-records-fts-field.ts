import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0037-records-fts-field.ts): `records_fts`'s GIN index with the field's name, for a text
 * search in one field. The embedded store filters its FTS5 matches by column: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
