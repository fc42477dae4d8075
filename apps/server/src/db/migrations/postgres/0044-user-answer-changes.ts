import { type Kysely, sql } from "kysely";
import * as m0043 from "./0043-user-answer-versions.js";

/** A statement changing more of one user's responses than this logs "unknown" for the user (readers read all again). */
const LOGGED_PER_STATEMENT = 1000;
/** Every this many versions of a user, the user's log rows older than KEPT_VERSIONS versions are deleted. */
const PRUNE_EVERY = 100;
const KEPT_VERSIONS = 1000;

/**
 * `user_answer_changes`: which records each version of `user_answer_versions` (0043) changed, so that a replica holding
 * a user's answered records under version H brings them to the current version by reading the records of the versions
 * after H (search/postgres-answered-changes.ts) instead of all of them again (1M records, 34K Submits: 148K buffers).
 *
 * The versions become a counter per user, moved under the user's row lock: `on conflict do update set version =
 * version + 1` is evaluated on the row it locked (after another transaction writing the same user's responses has
 * committed), where 0043's `excluded.version` took its number from the sequence before waiting. So a user's versions
 * are consecutive and in commit order, and each version has its log rows committed with it: a reader that finds every
 * version between H and the current one in the log (one snapshot) has every change; a missing one (pruned, or a number
 * 0043 gave) makes it read everything again. No table of what was pruned is needed.
 *
 * A log row is (user, version, dataset, seq) of a record whose response of the user was inserted, deleted or changed
 * its (id, record, user, status); the dataset and seq are null when the statement changed more than LOGGED_PER_STATEMENT
 * of the user's responses or when the record is gone (its delete cascades to its responses after the record's row is
 * deleted): readers then read everything again. The log keeps the last KEPT_VERSIONS versions of each user (pruned by
 * the trigger itself every PRUNE_EVERY versions of the user, under the user's row lock).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table user_answer_changes (user_id text not null, version bigint not null, dataset_id text, seq bigint)`.execute(db);
  await sql`create index user_answer_changes_user_version_idx on user_answer_changes (user_id, version)`.execute(db);
  await sql
    .raw(
      `create or replace function tessera_user_answer_versions() returns trigger language plpgsql as $$
    declare
      users text[];
      recs text[];
    begin
      if tg_op = 'INSERT' then
        select array_agg(user_id), array_agg(record_id) into users, recs from new_rows;
      elsif tg_op = 'DELETE' then
        select array_agg(user_id), array_agg(record_id) into users, recs from old_rows;
      else
        select array_agg(user_id), array_agg(record_id) into users, recs from (
          select user_id, record_id from (select id, record_id, user_id, status from new_rows
            except select id, record_id, user_id, status from old_rows) changed
          union select user_id, record_id from (select id, record_id, user_id, status from old_rows
            except select id, record_id, user_id, status from new_rows) was
        ) c;
      end if;
      if users is null then
        return null;
      end if;
      with changed as (select distinct user_id, record_id from unnest(users, recs) as c(user_id, record_id)),
      per_user as (select user_id, count(*) as n from changed group by user_id),
      bumped as (
        insert into user_answer_versions as v (user_id, version)
          select user_id, 1 from per_user order by user_id
          on conflict (user_id) do update set version = v.version + 1
          returning v.user_id, v.version
      ),
      pruned as (
        delete from user_answer_changes l using bumped b
          where l.user_id = b.user_id and b.version % ${PRUNE_EVERY} = 0 and l.version <= b.version - ${KEPT_VERSIONS}
      )
      insert into user_answer_changes (user_id, version, dataset_id, seq)
        select b.user_id, b.version, r.dataset_id, r.seq from bumped b join per_user p on p.user_id = b.user_id
          join changed c on c.user_id = b.user_id left join records r on r.id = c.record_id
          where p.n <= ${LOGGED_PER_STATEMENT}
        union all
        select b.user_id, b.version, null, null from bumped b join per_user p on p.user_id = b.user_id
          where p.n > ${LOGGED_PER_STATEMENT};
      return null;
    end $$`,
    )
    .execute(db);
}

/** Back to 0043's function (its versions and sequence made again: every replica reads its answered records again). */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists user_answer_changes`.execute(db);
  await m0043.down(db);
  await m0043.up(db);
}
