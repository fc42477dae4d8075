import { type Kysely, sql } from "kysely";

/**
 * Similarity is served by one IVFFlat index per vector settings in both orders (search/postgres-vector-index.ts):
 * the HNSW indexes earlier versions built (`record_vectors_hnswh_<settings>_<dimensions>`, `..._hnsw_...`) are
 * dropped where the settings' IVFFlat index (`record_vectors_ivfi_...`, or an earlier `..._ivfh_...`) is valid,
 * which already served both orders there: 1.1 GB of disk and of shared buffers at 1M x 384, and ~2-2.8 ms per
 * vector written. Where it is not valid (being built, pgvector before 0.7) the HNSW index stays and serves
 * until the server's job has built it, then goes (PostgresVectorIndexes.tick): no gap for the users.
 * A plain DROP INDEX (no CONCURRENTLY in a migration's transaction) holds record_vectors for a moment only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`do $$
    declare
      hnsw record;
    begin
      for hnsw in
        select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
        where i.indrelid = 'record_vectors'::regclass and c.relname ~ '^record_vectors_hnswh?_[0-9a-f]+_[0-9]+$'
          and exists (
            select 1 from pg_class f join pg_index fi on fi.indexrelid = f.oid
            where fi.indisvalid and f.relname in (
              regexp_replace(c.relname, '^record_vectors_hnswh?_', 'record_vectors_ivfi_'),
              regexp_replace(c.relname, '^record_vectors_hnswh?_', 'record_vectors_ivfh_')))
      loop
        execute format('drop index %I', hnsw.name);
      end loop;
    end $$`.execute(db);
}
