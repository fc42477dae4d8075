import { type Kysely, sql } from "kysely";
import { BUCKET_INDEX } from "./0030-records-fts-seq-buckets.js";
import { FIELD_INDEX_SPEC } from "./0037-records-fts-field.js";

/**
 * `records_fts`'s bucket index (0030: words, bucket of record seqs) dropped where the index with the fields' names (0037:
 * words, bucket, field) is valid: GIN reads the columns a query names, so the second serves every lookup of the first
 * (the words alone, the words in buckets), and each record's text updated both on every insert. Its words' GIN entries
 * were ~17% of an import's PostgreSQL time (~810 µs a record at 100K records, 93 MB of index for 100K records; the
 * same size as the field index).
 *
 * A database whose field index is not valid yet (upgraded with records, its background build pending) keeps it: the
 * background build drops it once the field index is valid (search/postgres-text-field.ts), and the bucket index's own
 * background job is not built again while the field index is valid (search/postgres-text-buckets.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ valid: number }>`
    select 1 as valid from pg_class c join pg_index i on i.indexrelid = c.oid
    where c.relname = ${FIELD_INDEX_SPEC.index} and i.indisvalid`.execute(db);
  if (rows.length === 0) return;
  await sql.raw(`drop index if exists ${BUCKET_INDEX}`).execute(db);
}
