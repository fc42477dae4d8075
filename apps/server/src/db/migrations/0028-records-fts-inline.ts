import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0028-records-fts-inline.ts): the text fields' tsvectors stored in their
 * rows instead of out of line. SQLite's FTS5 index has no such column: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
