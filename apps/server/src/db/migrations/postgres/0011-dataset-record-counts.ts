import { type Kysely, sql } from "kysely";

/**
 * PostgreSQL variant of 0011-dataset-record-counts: the same table, but append-only deltas
 * (several rows per dataset and status, summed by the readers, see records/counts.ts) written by
 * statement-level triggers from the transition tables. Updating one counter row in place would
 * serialize concurrent writers of a dataset on that row's lock (and two transactions moving
 * records between statuses in opposite directions could deadlock); inserts never wait.
 * During a dataset's cascade the deltas of its deleted records are dropped (the dataset row is
 * already gone, so the foreign key would refuse them; its counters cascade away anyway).
 * Also `suggestions_question_agent_idx` replaces `suggestions_question_idx`, as on SQLite.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table dataset_record_counts (
    dataset_id text not null references datasets(id) on delete cascade,
    status text not null,
    n bigint not null
  )`.execute(db);
  await sql`create index dataset_record_counts_dataset_idx on dataset_record_counts (dataset_id, status)`.execute(db);
  await sql`insert into dataset_record_counts (dataset_id, status, n)
    select dataset_id, status, count(*) from records group by dataset_id, status`.execute(db);
  await sql`create function tessera_dataset_record_counts() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into dataset_record_counts (dataset_id, status, n)
          select dataset_id, status, count(*) from new_rows group by dataset_id, status;
      elsif tg_op = 'DELETE' then
        insert into dataset_record_counts (dataset_id, status, n)
          select o.dataset_id, o.status, -count(*) from old_rows o
          where exists (select 1 from datasets d where d.id = o.dataset_id) group by o.dataset_id, o.status;
      else
        insert into dataset_record_counts (dataset_id, status, n)
          select c.dataset_id, c.status, sum(c.n) from (
            select dataset_id, status, -1 as n from old_rows union all select dataset_id, status, 1 from new_rows
          ) c where exists (select 1 from datasets d where d.id = c.dataset_id)
          group by c.dataset_id, c.status having sum(c.n) <> 0;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger dataset_record_counts_after_insert after insert on records
    referencing new table as new_rows for each statement execute function tessera_dataset_record_counts()`.execute(db);
  await sql`create trigger dataset_record_counts_after_delete after delete on records
    referencing old table as old_rows for each statement execute function tessera_dataset_record_counts()`.execute(db);
  await sql`create trigger dataset_record_counts_after_update after update on records
    referencing old table as old_rows new table as new_rows for each statement execute function tessera_dataset_record_counts()`.execute(
    db,
  );
  await sql`create index suggestions_question_agent_idx on suggestions (question_id, agent)`.execute(db);
  await sql`drop index suggestions_question_idx`.execute(db);
}
