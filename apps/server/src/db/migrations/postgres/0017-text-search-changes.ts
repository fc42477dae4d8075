import { type Kysely, sql } from "kysely";

/**
 * The writes that change what a dataset's text search finds or how it ranks it: a record inserted or
 * deleted, or its fields (hence its `records_fts` rows) or dataset changed. Append-only, one row per
 * statement and dataset, written by statement-level triggers from the transition tables (like 0011:
 * no row to contend on, so concurrent writers never wait). A dataset's text version is its largest
 * id (`text_search_changes_dataset_idx`), read by search/postgres-search.ts before it uses or builds
 * its cached matches: ts_rank scores a record from its own tsvector alone, so no other dataset's
 * writes matter. Status and metadata updates (every Submit) add nothing. No foreign key: the rows of
 * a dataset's cascade are written after the dataset row is gone, and are harmless.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create table text_search_changes (
    id bigint generated always as identity primary key,
    dataset_id text not null
  )`.execute(db);
  await sql`create index text_search_changes_dataset_idx on text_search_changes (dataset_id, id)`.execute(db);
  await sql`create function tessera_text_search_changes() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into text_search_changes (dataset_id) select distinct dataset_id from new_rows;
      elsif tg_op = 'DELETE' then
        insert into text_search_changes (dataset_id) select distinct dataset_id from old_rows;
      else
        insert into text_search_changes (dataset_id)
          select distinct c.dataset_id from (
            select o.dataset_id, n.dataset_id as moved_to from old_rows o join new_rows n on n.seq = o.seq
            where o.fields is distinct from n.fields or o.dataset_id is distinct from n.dataset_id
          ) m cross join lateral (values (m.dataset_id), (m.moved_to)) as c(dataset_id);
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger text_search_changes_after_insert after insert on records
    referencing new table as new_rows for each statement execute function tessera_text_search_changes()`.execute(db);
  await sql`create trigger text_search_changes_after_delete after delete on records
    referencing old table as old_rows for each statement execute function tessera_text_search_changes()`.execute(db);
  await sql`create trigger text_search_changes_after_update after update on records
    referencing old table as old_rows new table as new_rows for each statement execute function tessera_text_search_changes()`.execute(db);
}
