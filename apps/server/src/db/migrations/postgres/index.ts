import type { Kysely } from "kysely";
import type { Migration, MigrationProvider } from "kysely/migration";
import { migrationProvider } from "../index.js";
import * as pg0002 from "./0002-dataset-settings.js";
import * as pg0003 from "./0003-records.js";
import * as pg0011 from "./0011-dataset-record-counts.js";
import * as pg0017 from "./0017-text-search-changes.js";
import * as pg0022 from "./0022-uploads.js";
import * as pg0023 from "./0023-dataset-answer-versions.js";
import * as pg0024 from "./0024-text-ranked-ahead.js";
import * as pg0025 from "./0025-record-search.js";
import * as pg0028 from "./0028-records-fts-inline.js";
import * as pg0030 from "./0030-records-fts-seq-buckets.js";
import * as pg0031 from "./0031-record-search-words-terms.js";
import * as pg0032 from "./0032-text-vocabulary.js";
import * as pg0034 from "./0034-similarity-hnsw-dropped.js";
import * as pg0036 from "./0036-sort-indexes.js";
import * as pg0037 from "./0037-records-fts-field.js";
import * as pg0038 from "./0038-metadata-term-counts.js";
import * as pg0039 from "./0039-record-vector-words.js";
import * as pg0040 from "./0040-text-ranked-counts.js";
import * as pg0041 from "./0041-dataset-response-counts.js";
import * as pg0042 from "./0042-records-fts-bucket-index-dropped.js";
import * as pg0043 from "./0043-user-answer-versions.js";
import * as pg0044 from "./0044-user-answer-changes.js";

/**
 * PostgreSQL runs the same, versioned migration list as SQLite (same names, so the history is
 * comparable); a migration whose SQL is SQLite-specific has a PostgreSQL variant here, keyed by
 * the same name. Portable migrations (Kysely schema builder, text/integer columns) need none.
 * When you add a migration with raw SQLite SQL (FTS5, WITHOUT ROWID, json_each, table rebuilds),
 * add its PostgreSQL variant here too; `postgres-migrations.test.ts` runs the whole list on PGlite.
 */
const noop: Migration = { up: async (_db: Kysely<unknown>) => {} };

export const postgresVariants: Record<string, Migration> = {
  "0002-dataset-settings": pg0002,
  "0003-records": pg0003,
  /** SQLite table rebuild; the PostgreSQL 0003 already has the final shape. */
  "0006-record-vectors-rowid": noop,
  /** SQLite FTS5 trigger; PostgreSQL keeps its records_fts triggers. */
  "0008-records-fts-explicit-insert": noop,
  /** SQLite metadata index kept by triggers; PostgreSQL filters its jsonb directly. */
  "0009-record-metadata-index": noop,
  /** SQLite FTS5 table rebuilt contentless; PostgreSQL keeps its tsvector records_fts. */
  "0010-records-fts-contentless": noop,
  /** Counters kept by statement-level triggers appending deltas (no in-place row to contend on). */
  "0011-dataset-record-counts": pg0011,
  /** SQLite: change log of record_vectors for the in-memory similarity codes; pgvector has its own index. */
  "0012-record-vector-changes": noop,
  /** SQLite: versions of the in-memory metadata columns; PostgreSQL filters its jsonb directly. */
  "0013-search-index-versions": noop,
  /** SQLite: deferred FTS5 indexing mark and triggers; PostgreSQL keeps its tsvector triggers. */
  "0014-records-fts-deferred": noop,
  /** SQLite: change log of record statuses for the in-memory queue exclusions; PostgreSQL filters its records directly. */
  "0015-record-status-changes": noop,
  /** SQLite: the FTS5 index moves to a file and thread of its own; PostgreSQL keeps its tsvector triggers. */
  "0016-records-fts-own-file": noop,
  /** PostgreSQL: the log that versions the ranked-match cache of text search; SQLite's 0017 is empty. */
  "0017-text-search-changes": pg0017,
  /** The uploaded bytes live in the database (`upload_chunks`): replicas share no disk. */
  "0022-uploads": pg0022,
  /** Versions appended by statement-level triggers (no row to contend on), as 0011. */
  "0023-dataset-answer-versions": pg0023,
  /** PostgreSQL: the frequent words of text search ranked ahead, shared by the replicas; SQLite's 0024 is empty. */
  "0024-text-ranked-ahead": pg0024,
  /** PostgreSQL: one narrow row per record for the bounded totals of text search; SQLite's 0025 is empty. */
  "0025-record-search": pg0025,
  /** PostgreSQL: the text fields' tsvectors inline, the existing rows rewritten in the background; SQLite's 0028 is empty. */
  "0028-records-fts-inline": pg0028,
  /** PostgreSQL: the text index restricted to ranges of records (seq buckets); SQLite's 0030 is empty. */
  "0030-records-fts-seq-buckets": pg0030,
  /** PostgreSQL: record_search's words and metadata terms in one GIN index; SQLite's 0031 is empty. */
  "0031-record-search-words-terms": pg0031,
  /** PostgreSQL: the datasets' vocabularies for prefixes, read once per text version and shared by the replicas; SQLite's 0032 is empty. */
  "0032-text-vocabulary": pg0032,
  /** PostgreSQL: the HNSW indexes of similarity dropped where the IVFFlat index serves; SQLite's 0034 is empty. */
  "0034-similarity-hnsw-dropped": pg0034,
  /** SQLite: the updated_at index and the suggestions' versions for the in-memory sort keys; PostgreSQL sorts in SQL (its own migrations). */
  "0035-record-sort-keys": noop,
  /** PostgreSQL: indexes in the order of the annotation page's sorts (updated time, suggestion score); SQLite's 0036 is empty. */
  "0036-sort-indexes": pg0036,
  /** PostgreSQL: records_fts's text index with the fields' names (a search in one field); SQLite's 0037 is empty. */
  "0037-records-fts-field": pg0037,
  /** PostgreSQL: the counts of the terms properties' values kept by triggers; SQLite's 0038 is empty. */
  "0038-metadata-term-counts": pg0038,
  /** PostgreSQL: a signature of each record's words next to its vectors (similarity with a word); SQLite's 0039 is empty. */
  "0039-record-vector-words": pg0039,
  /** PostgreSQL: the occurrence counts beside the lists of the words ranked ahead (a deep page scored without tsvectors); SQLite's 0040 is empty. */
  "0040-text-ranked-counts": pg0040,
  /** PostgreSQL: the responses of each (dataset, user, status) kept by triggers (an annotator's totals and progress); SQLite's 0041 is empty. */
  "0041-dataset-response-counts": pg0041,
  /** PostgreSQL: records_fts's bucket index dropped where the index with the fields' names serves its lookups; SQLite's 0042 is empty. */
  "0042-records-fts-bucket-index-dropped": pg0042,
  /** PostgreSQL: a version of each user's answered records kept by triggers (the caller's answered records kept in memory); SQLite's 0043 is empty. */
  "0043-user-answer-versions": pg0043,
  /** PostgreSQL: the records each version of a user's answered records changed (the kept answered records brought up to date); SQLite's 0044 is empty. */
  "0044-user-answer-changes": pg0044,
};

export const postgresMigrationProvider: MigrationProvider = {
  getMigrations: async () => {
    const all = await migrationProvider.getMigrations();
    return Object.fromEntries(Object.entries(all).map(([name, migration]) => [name, postgresVariants[name] ?? migration]));
  },
};
