import type { Kysely } from "kysely";

/**
 * PostgreSQL only (see postgres/0036-sort-indexes.ts): indexes in the order of the annotation page's sorts
 * (updated time, suggestion score). The embedded store sorts from its own structures: nothing to do here.
 */
export async function up(_db: Kysely<unknown>): Promise<void> {}
