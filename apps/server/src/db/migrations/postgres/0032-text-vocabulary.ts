import { type Kysely, sql } from "kysely";

/**
 * Each large dataset's vocabulary (every lexeme of its text fields) at a text version (0017), which prefixes read
 * as the words they cover (search/postgres-text-vocabulary.ts, issue 31). `ts_stat` over 1M bench records costs
 * ~25-60 s of PostgreSQL CPU; stored here, one replica reads it once per version and the others (and restarts)
 * load the stored words instead of reading them again. The replica reading a version holds the dataset's row
 * locked (`FOR UPDATE SKIP LOCKED`): the others skip it meanwhile, and a replica that dies releases it with its
 * connection. `words` null with a version: more words than a replica keeps (the prefixes' other paths).
 * `version` -1: not read yet.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table text_vocabulary (
    dataset_id text primary key references datasets(id) on delete cascade,
    version bigint not null,
    words text[],
    read_at timestamptz
  )`.execute(db);
}
