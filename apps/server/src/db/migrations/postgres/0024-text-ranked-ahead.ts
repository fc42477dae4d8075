import { type Kysely, sql } from "kysely";

/**
 * The frequent words of a dataset's text search ranked ahead (issue 31, search/postgres-rank-ahead.ts),
 * stored so that a restart or a second replica does not redo them:
 * - `text_ranked_ahead`: per dataset and word (the `querytree` of its one-lexeme tsquery, e.g. `'quick'`),
 *   at the dataset's text version (`text_search_changes`, 0017): the records that match it, the records
 *   where it occurs at least twice in one field, and the best of those (most occurrences in one field,
 *   then seq; at most 1024).
 * - `text_ranked_ahead_runs`: which replica ranks which dataset at which version (a claim, so that two
 *   replicas do not rank the same version), and when it finished.
 * - `tessera_tsvector_concat`: the `||` of a record's fields' tsvectors, so that `ts_stat` counts records.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create aggregate tessera_tsvector_concat(tsvector) (sfunc = tsvector_concat, stype = tsvector, initcond = '')`.execute(db);
  await sql`create table text_ranked_ahead (
    dataset_id text not null references datasets(id) on delete cascade,
    word text not null,
    version bigint not null,
    records integer not null,
    repeated integer not null,
    seqs bigint[] not null,
    primary key (dataset_id, word)
  )`.execute(db);
  await sql`create table text_ranked_ahead_runs (
    dataset_id text primary key references datasets(id) on delete cascade,
    version bigint not null,
    started_at timestamptz not null default now(),
    finished_at timestamptz
  )`.execute(db);
}
