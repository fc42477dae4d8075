import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { BUCKET_INDEX, BUCKET_INDEX_SQL, WORDS_INDEX } from "../db/migrations/postgres/0030-records-fts-seq-buckets.js";
import { FIELD_INDEX_SPEC } from "../db/migrations/postgres/0037-records-fts-field.js";
import { PostgresBackgroundIndex } from "./postgres-background-index.js";

/**
 * The bucket index of `records_fts` on a database upgraded with records (migration 0030 builds it only
 * on an empty table), built in the background (postgres-background-index.ts: `CREATE INDEX CONCURRENTLY`,
 * writes to `records_fts` go on; 96 s at 1M records in the migration's transaction). Until the index is
 * valid, searches keep the words-only index and its paths (`ready` false: postgres-text-walk.ts's probe,
 * walk or whole index, as before 0030), then take the buckets; then the words-only index is dropped, so
 * that inserts update one GIN index of the words again.
 *
 * The index with the fields' names (0037: words, bucket, field) serves every lookup of this one: while it is valid this
 * one counts as valid and is not built (migration 0042 and the field index's build drop it: one GIN index of the words
 * on every insert).
 */
export class PostgresTextBuckets extends PostgresBackgroundIndex {
  constructor(db: Kysely<DB>, options: { tickMs?: number; replacedMs?: number } = {}) {
    super(
      db,
      {
        index: BUCKET_INDEX,
        table: "records_fts",
        definition: BUCKET_INDEX_SQL,
        replaces: [WORDS_INDEX],
        what: "the text index on record ranges",
        supersededBy: FIELD_INDEX_SPEC.index,
      },
      options,
    );
  }
}
