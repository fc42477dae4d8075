import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { BUCKET_INDEX } from "../db/migrations/postgres/0030-records-fts-seq-buckets.js";
import { FIELD_INDEX_SPEC } from "../db/migrations/postgres/0037-records-fts-field.js";
import { PostgresBackgroundIndex } from "./postgres-background-index.js";
import type { Builder } from "./postgres-sql.js";

/**
 * `records_fts`'s index with the fields' names on a database upgraded with records (migration 0037 builds it only on an
 * empty table), built in the background after `after` (one heavy build at a time; 1M bench records: 3 min 43 s). Until it
 * is valid a search in one field reads its word's rows in every field and drops the others (fieldCondition). Once it is
 * valid it replaces the bucket index (0030), whose lookups it serves (migration 0042 drops that where it is valid already).
 */
export function textFieldIndex(
  db: Kysely<DB>,
  after?: () => Promise<boolean>,
  options: { replacedMs?: number } = {},
): PostgresBackgroundIndex {
  return new PostgresBackgroundIndex(db, { ...FIELD_INDEX_SPEC, replaces: [BUCKET_INDEX] }, after ? { ...options, after } : options);
}

/**
 * The condition on `records_fts f`'s field next to `f.tsv @@ q` for a search in one field (`field`; none: "").
 * `indexed` (the statement reads the GIN index): with the field index, `array[f.field] @> '{field}'`, which GIN reads
 * with the words (only the field's rows reach the heap); without it, an expression no index serves (as `f.field = $`
 * the planner ANDed the primary key's bitmap of every row of the field: 1M bench records, 1M rows, 313 ms of a word's
 * 570 ms in field `summary`), the other fields' rows dropped after their heap read. Not `indexed`: the plain test.
 */
export function fieldCondition(b: Builder, field: string | null, indexed: boolean, fieldIndex: boolean): string {
  if (field === null) return "";
  if (!indexed) return ` AND f.field = ${b.p(field)}`;
  return fieldIndex ? ` AND array[f.field] @> array[${b.p(field)}::text]` : ` AND (f.field || '') = ${b.p(field)}`;
}

/**
 * Buckets of the first round of a search in one field's windows (postgres-text-walk.ts firstMatches), with the field
 * index: the round reads only the field's matches, and one bucket (1,024 records) held too few of them for the density
 * the next rounds take from it (1M bench records, a word in 1.1% of the summaries: 6 in the first bucket, taken for a
 * sparse word: its 11,235 matches read and ranked, 164-229 ms, for a window of 995).
 */
const FIELD_FIRST_BUCKETS = 8;

/** The walk's options of a search in `field` (null: none) when `fieldIndex` is valid. */
export function fieldWalk(field: string | null, fieldIndex: boolean): { fieldIndex?: boolean; firstBuckets?: number } {
  return field !== null && fieldIndex ? { fieldIndex: true, firstBuckets: FIELD_FIRST_BUCKETS } : {};
}
