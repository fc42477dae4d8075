import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0039-record-vector-words.ts): a signature of each record's words next to its vectors,
 * for similarity with a word. The embedded store tests its candidates in memory: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
