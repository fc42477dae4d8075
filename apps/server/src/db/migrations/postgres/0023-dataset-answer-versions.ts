import { type Kysely, sql } from "kysely";

/**
 * PostgreSQL variant of 0023-dataset-answer-versions: statement-level triggers append a row with a
 * new number from a sequence for each dataset a statement's responses (or deleted records) belong
 * to, instead of updating one row in place, so that concurrent writers never wait on each other
 * (as postgres/0011). Read as `max(version)` by dataset; review/agreement-cache.ts deletes a
 * dataset's older rows when it reads them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence dataset_answer_versions_seq`.execute(db);
  await sql`create table dataset_answer_versions (
    dataset_id text not null,
    version bigint not null default nextval('dataset_answer_versions_seq')
  )`.execute(db);
  await sql`create index dataset_answer_versions_dataset_idx on dataset_answer_versions (dataset_id, version)`.execute(db);
  await sql`create function tessera_dataset_answer_versions() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'records' then
        insert into dataset_answer_versions (dataset_id) select distinct dataset_id from old_rows;
      elsif tg_op = 'DELETE' then
        insert into dataset_answer_versions (dataset_id)
          select distinct r.dataset_id from old_rows o join records r on r.id = o.record_id;
      else
        insert into dataset_answer_versions (dataset_id)
          select distinct r.dataset_id from new_rows n join records r on r.id = n.record_id;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger dataset_answer_versions_response_insert after insert on responses
    referencing new table as new_rows for each statement execute function tessera_dataset_answer_versions()`.execute(db);
  await sql`create trigger dataset_answer_versions_response_update after update on responses
    referencing new table as new_rows for each statement execute function tessera_dataset_answer_versions()`.execute(db);
  await sql`create trigger dataset_answer_versions_response_delete after delete on responses
    referencing old table as old_rows for each statement execute function tessera_dataset_answer_versions()`.execute(db);
  await sql`create trigger dataset_answer_versions_record_delete after delete on records
    referencing old table as old_rows for each statement execute function tessera_dataset_answer_versions()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists dataset_answer_versions_record_delete on records`.execute(db);
  for (const op of ["insert", "update", "delete"])
    await sql.raw(`drop trigger if exists dataset_answer_versions_response_${op} on responses`).execute(db);
  await sql`drop function if exists tessera_dataset_answer_versions()`.execute(db);
  await sql`drop table if exists dataset_answer_versions`.execute(db);
  await sql`drop sequence if exists dataset_answer_versions_seq`.execute(db);
}
