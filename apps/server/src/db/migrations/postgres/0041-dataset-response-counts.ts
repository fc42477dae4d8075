import { type Kysely, sql } from "kysely";

/**
 * `dataset_response_counts`: the responses of each (dataset, user, status), so that an annotator's Submitted / Draft /
 * Discarded totals and My progress read a few rows instead of joining each of the caller's responses with `records`
 * (at 1M records: ~54 ms for 34K Submits as a head, ~138 ms for 20K spread every 50th record, growing with the work).
 *
 * Append-only deltas written by statement-level triggers from the transition tables, summed by the reader and compacted
 * by it now and then (responses/response-counts.ts), as `dataset_record_counts` (postgres/0011): 50 annotators
 * submitting at once never wait on one row's lock. No foreign key to users: a deleted user's responses cascade after
 * its row is gone (their deltas sum to zero and are compacted away).
 *
 * A record's responses cascade after the record row is gone (and the statement triggers of that cascade fire after the
 * records' own), so their dataset cannot be looked up from `records` then: the responses' delete trigger skips them, and
 * a row trigger before each record's delete takes their deltas from the record's responses (one probe of
 * `responses_record_user_uq`; records already have row triggers, postgres/0025), unless the dataset is gone too (a
 * dataset's delete: its counters cascade away). The record row is locked before the trigger fires (a response being
 * inserted for it commits first and is counted) and the record's responses are read `FOR UPDATE` (a response being
 * deleted or changed by another transaction is read as that one commits it, not subtracted twice).
 *
 * The existing responses are counted here, in one grouped statement (~100K responses at 1M records: see the report
 * of session 22's s22-counters).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table dataset_response_counts (
    dataset_id text not null references datasets(id) on delete cascade,
    user_id text not null,
    status text not null,
    n bigint not null
  )`.execute(db);
  await sql`create index dataset_response_counts_idx on dataset_response_counts (dataset_id, user_id, status)`.execute(db);
  await sql`insert into dataset_response_counts (dataset_id, user_id, status, n)
    select r.dataset_id, s.user_id, s.status, count(*) from responses s join records r on r.id = s.record_id
    group by r.dataset_id, s.user_id, s.status`.execute(db);
  await sql`create function tessera_dataset_response_counts() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into dataset_response_counts (dataset_id, user_id, status, n)
          select r.dataset_id, n.user_id, n.status, count(*) from new_rows n join records r on r.id = n.record_id
          group by r.dataset_id, n.user_id, n.status;
      elsif tg_op = 'DELETE' then
        insert into dataset_response_counts (dataset_id, user_id, status, n)
          select r.dataset_id, o.user_id, o.status, -count(*) from old_rows o join records r on r.id = o.record_id
          group by r.dataset_id, o.user_id, o.status;
      else
        insert into dataset_response_counts (dataset_id, user_id, status, n)
          select r.dataset_id, c.user_id, c.status, sum(c.n) from (
            select record_id, user_id, status, -1 as n from old_rows union all select record_id, user_id, status, 1 from new_rows
          ) c join records r on r.id = c.record_id
          group by r.dataset_id, c.user_id, c.status having sum(c.n) <> 0;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger dataset_response_counts_after_insert after insert on responses
    referencing new table as new_rows for each statement execute function tessera_dataset_response_counts()`.execute(db);
  await sql`create trigger dataset_response_counts_after_update after update on responses
    referencing old table as old_rows new table as new_rows for each statement execute function tessera_dataset_response_counts()`.execute(
    db,
  );
  await sql`create trigger dataset_response_counts_after_delete after delete on responses
    referencing old table as old_rows for each statement execute function tessera_dataset_response_counts()`.execute(db);
  await sql`create function tessera_record_response_counts() returns trigger language plpgsql as $$
    begin
      insert into dataset_response_counts (dataset_id, user_id, status, n)
        select old.dataset_id, s.user_id, s.status, -count(*)
        from (select user_id, status from responses where record_id = old.id for update) s
        where exists (select 1 from datasets d where d.id = old.dataset_id)
        group by s.user_id, s.status;
      return old;
    end $$`.execute(db);
  await sql`create trigger dataset_response_counts_record_delete before delete on records
    for each row execute function tessera_record_response_counts()`.execute(db);
}
