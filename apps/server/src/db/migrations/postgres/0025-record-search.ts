import { type Kysely, sql } from "kysely";

/**
 * `record_search`: one narrow row per record with what the bounded total of a text search filters
 * on (issue 31): the record's words (the `||` of its fields' tsvectors, GIN index), status, metadata
 * (and its terms, GIN index), id and dataset. The total of a text search with the annotation page's filters (metadata, statuses,
 * responses) otherwise joins `records_fts` (~625 bytes a row: the tsvectors inline) with `records`
 * (~1.4 KB a row: the fields inline), reading most pages of both for a common word (100K bench
 * records: 26K pages, ~300 ms); here the word's GIN entry leads to rows of ~460 bytes (the tsvector
 * is stored uncompressed out of line, `STORAGE EXTERNAL`, as soon as a row exceeds 2 KB: a count
 * never reads it, the GIN match of plain words being exact).
 *
 * `terms` lists the metadata's scalar values (of a list: each item) as `name \x1f type-tagged value`
 * (`tessera_metadata_terms`, numbers without trailing zeros: jsonb's equality), GIN-indexed: a terms
 * filter's overlap with them is exact in the index, so PostgreSQL ANDs it with the word's GIN entry and
 * reads only the records both give (the `@>` test stays, on those rows).
 *
 * A second GIN index over the same words: `records_fts`'s (0003) stays for the queries that rank
 * (it serves their bitmap scans in page order; ranking through this one and `records_fts`'s primary key
 * measured 2-5x slower). An insert costs ~1.6x in PostgreSQL (both indexes take the words).
 *
 * Kept by the records' triggers: `tessera_records_fts` (insert, fields update) writes the row with
 * the tsvectors it computes (one tokenization), `tessera_record_search_update` copies status,
 * metadata, id and dataset changes; a deleted record's row goes by the foreign key's cascade.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create function tessera_metadata_terms(m jsonb) returns text[] language sql immutable parallel safe as $$
    select coalesce(array_agg(k.key || chr(31) || case jsonb_typeof(e.value)
        when 'number' then 'n' || trim_scale((e.value #>> '{}')::numeric)::text
        when 'string' then 's' || (e.value #>> '{}')
        else jsonb_typeof(e.value) || coalesce(e.value #>> '{}', '') end), '{}')
    from jsonb_each(case jsonb_typeof(m) when 'object' then m else '{}' end) k
      cross join lateral jsonb_array_elements(case jsonb_typeof(k.value) when 'array' then k.value else jsonb_build_array(k.value) end) e(value)
    where jsonb_typeof(e.value) in ('number', 'string', 'boolean', 'null') $$`.execute(db);
  await sql`create table record_search (
    seq bigint primary key references records(seq) on delete cascade,
    id text not null,
    dataset_id text not null,
    status text not null,
    metadata jsonb,
    terms text[] not null,
    tsv tsvector not null
  )`.execute(db);
  await sql`alter table record_search alter column tsv set storage external`.execute(db);
  await sql`insert into record_search (seq, id, dataset_id, status, metadata, terms, tsv)
    select r.seq, r.id, r.dataset_id, r.status, r.metadata, tessera_metadata_terms(r.metadata),
      coalesce((select tessera_tsvector_concat(f.tsv) from records_fts f where f.record_seq = r.seq), ''::tsvector)
    from records r`.execute(db);
  await sql`create index record_search_tsv_gin on record_search using gin (tsv)`.execute(db);
  // The planner's statistics of the words and terms (the choice between their GIN entries) before the first search.
  await sql`analyze record_search`.execute(db);
  await sql`create index record_search_terms_gin on record_search using gin (terms)`.execute(db);
  await sql`create or replace function tessera_records_fts() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        delete from records_fts where record_seq = old.seq;
      end if;
      with f as (
        insert into records_fts (record_seq, field, tsv)
          select new.seq, j.key, to_tsvector('tessera_search', j.value #>> '{}')
          from jsonb_each(new.fields) as j where jsonb_typeof(j.value) = 'string'
          returning tsv)
      insert into record_search (seq, id, dataset_id, status, metadata, terms, tsv)
        select new.seq, new.id, new.dataset_id, new.status, new.metadata, tessera_metadata_terms(new.metadata), tessera_tsvector_concat(f.tsv)
        from f
      on conflict (seq) do update set tsv = excluded.tsv, id = excluded.id, dataset_id = excluded.dataset_id,
        status = excluded.status, metadata = excluded.metadata, terms = excluded.terms;
      return null;
    end $$`.execute(db);
  await sql`create function tessera_record_search_update() returns trigger language plpgsql as $$
    begin
      update record_search set id = new.id, dataset_id = new.dataset_id, status = new.status, metadata = new.metadata,
        terms = case when old.metadata is distinct from new.metadata then tessera_metadata_terms(new.metadata) else terms end
        where seq = new.seq;
      return null;
    end $$`.execute(db);
  await sql`create trigger record_search_after_update after update of id, dataset_id, status, metadata on records
    for each row when (old.id is distinct from new.id or old.dataset_id is distinct from new.dataset_id
      or old.status is distinct from new.status or old.metadata is distinct from new.metadata)
    execute function tessera_record_search_update()`.execute(db);
}
