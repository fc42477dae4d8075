import { type Kysely, sql } from "kysely";

/**
 * `user_answer_versions`: a number per user that changes whenever one of the user's responses is inserted, deleted
 * (with its record, too: the cascade's statement fires the trigger) or changes its status, kept by statement-level
 * triggers so that every writer (the routes, the bulk ingestion, cascades) moves it without knowing of it. The text
 * search of the caller's Submitted (Draft, Discarded) records keeps the caller's answered records of a dataset in
 * each replica's memory under it (search/postgres-answered-seqs.ts): any change of the user's answers, on whichever
 * replica, makes the next search read them again. A user without a row has version 0 (no backfill: the first write
 * inserts a row with a new number).
 *
 * One row per user, updated in place from a sequence (`nextval` is never rolled back, so a number is never given
 * twice): only transactions writing the same user's responses wait on each other's row, in user order (no deadlock
 * between two statements writing several users). A response's values changing alone moves nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence user_answer_versions_seq`.execute(db);
  await sql`create table user_answer_versions (user_id text primary key, version bigint not null)`.execute(db);
  await sql`create function tessera_user_answer_versions() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into user_answer_versions (user_id, version)
          select u.user_id, nextval('user_answer_versions_seq') from (select distinct user_id from new_rows order by user_id) u
          on conflict (user_id) do update set version = excluded.version;
      elsif tg_op = 'DELETE' then
        insert into user_answer_versions (user_id, version)
          select u.user_id, nextval('user_answer_versions_seq') from (select distinct user_id from old_rows order by user_id) u
          on conflict (user_id) do update set version = excluded.version;
      else
        insert into user_answer_versions (user_id, version)
          select u.user_id, nextval('user_answer_versions_seq') from (
            select user_id from (select id, record_id, user_id, status from new_rows
              except select id, record_id, user_id, status from old_rows) changed
            union select user_id from (select id, record_id, user_id, status from old_rows
              except select id, record_id, user_id, status from new_rows) was
            order by 1
          ) u
          on conflict (user_id) do update set version = excluded.version;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger user_answer_versions_after_insert after insert on responses
    referencing new table as new_rows for each statement execute function tessera_user_answer_versions()`.execute(db);
  await sql`create trigger user_answer_versions_after_update after update on responses
    referencing old table as old_rows new table as new_rows for each statement execute function tessera_user_answer_versions()`.execute(db);
  await sql`create trigger user_answer_versions_after_delete after delete on responses
    referencing old table as old_rows for each statement execute function tessera_user_answer_versions()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const op of ["insert", "update", "delete"])
    await sql.raw(`drop trigger if exists user_answer_versions_after_${op} on responses`).execute(db);
  await sql`drop function if exists tessera_user_answer_versions()`.execute(db);
  await sql`drop table if exists user_answer_versions`.execute(db);
  await sql`drop sequence if exists user_answer_versions_seq`.execute(db);
}
