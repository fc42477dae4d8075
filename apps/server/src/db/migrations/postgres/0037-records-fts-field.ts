import { type Kysely, sql } from "kysely";
import type { BackgroundIndexSpec } from "../../../search/postgres-background-index.js";

/**
 * `records_fts`'s GIN index of (words, bucket of record seqs, field name) for a text search in one field (issue 31):
 * `tsv @@ q AND array[field] @> '{summary}'` reads in the index only the rows of that field (GIN's built-in array
 * operators, no extension). The bucket index (0030) has no field: the windows of a word in field `summary` read every
 * row of the word in any field from the heap and dropped the other fields' rows (1M bench records, a word in ~4% of the
 * summaries: 35,315 rows read for 6,780, 585 -> 176 ms for its remaining matches; 326 ms p95 for the annotation page's
 * call). The field's column adds ~3 MB to the 500 MB of the words (503 MB at 1M records, 2M rows).
 *
 * Here only on an empty `records_fts` (a new database: no time). A table with rows gets the index from the server in
 * the background (search/postgres-text-field.ts: `CREATE INDEX CONCURRENTLY`, writes go on; 1M bench records: 3 min 43 s,
 * 216 s of PostgreSQL CPU, load 4-6), after the other background indexes; until it is valid a search in one field takes
 * the bucket index and drops the other fields' rows, as before.
 */
export const FIELD_INDEX_SPEC: BackgroundIndexSpec = {
  index: "records_fts_field_gin",
  table: "records_fts",
  definition: "USING gin (tsv, (array[record_seq / 1024]), (array[field]))",
  replaces: [],
  what: "the text index with the fields' names",
};

export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ any: number }>`select 1 as any from records_fts limit 1`.execute(db);
  if (rows.length > 0) return;
  await sql.raw(`create index ${FIELD_INDEX_SPEC.index} on ${FIELD_INDEX_SPEC.table} ${FIELD_INDEX_SPEC.definition}`).execute(db);
}
