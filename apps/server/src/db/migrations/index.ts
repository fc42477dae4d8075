import type { Migration, MigrationProvider } from "kysely/migration";
import * as m0001 from "./0001-initial.js";
import * as m0002 from "./0002-dataset-settings.js";
import * as m0003 from "./0003-records.js";
import * as m0004oauth from "./0004-oauth.js";
import * as m0005jobs from "./0005-jobs.js";
import * as m0006 from "./0006-record-vectors-rowid.js";
import * as m0007webhooks from "./0007-webhooks.js";
import * as m0008 from "./0008-records-fts-explicit-insert.js";
import * as m0009 from "./0009-record-metadata-index.js";
import * as m0010 from "./0010-records-fts-contentless.js";
import * as m0011 from "./0011-dataset-record-counts.js";
import * as m0012 from "./0012-record-vector-changes.js";
import * as m0013 from "./0013-search-index-versions.js";
import * as m0014 from "./0014-records-fts-deferred.js";
import * as m0015 from "./0015-record-status-changes.js";
import * as m0016 from "./0016-records-fts-own-file.js";
import * as m0017 from "./0017-text-search-changes.js";
import * as m0018sessions from "./0018-user-sessions-and-key-digests.js";
import * as m0019finalAnswers from "./0019-record-final-answers.js";
import * as m0020reservations from "./0020-record-reservations.js";
import * as m0021 from "./0021-record-vector-exact.js";
import * as m0022uploads from "./0022-uploads.js";
import * as m0023 from "./0023-dataset-answer-versions.js";
import * as m0024 from "./0024-text-ranked-ahead.js";
import * as m0025 from "./0025-record-search.js";
import * as m0028 from "./0028-records-fts-inline.js";
import * as m0030 from "./0030-records-fts-seq-buckets.js";
import * as m0031 from "./0031-record-search-words-terms.js";
import * as m0032 from "./0032-text-vocabulary.js";
import * as m0034 from "./0034-similarity-hnsw-dropped.js";
import * as m0035 from "./0035-record-sort-keys.js";
import * as m0036 from "./0036-sort-indexes.js";
import * as m0037 from "./0037-records-fts-field.js";
import * as m0038 from "./0038-metadata-term-counts.js";
import * as m0039 from "./0039-record-vector-words.js";
import * as m0040 from "./0040-text-ranked-counts.js";
import * as m0041 from "./0041-dataset-response-counts.js";
import * as m0042 from "./0042-records-fts-bucket-index-dropped.js";
import * as m0043 from "./0043-user-answer-versions.js";
import * as m0044 from "./0044-user-answer-changes.js";

/**
 * Versioned migrations, applied in key order by Kysely's Migrator. Add a new file per change
 * (never edit an applied one) and list it here.
 */
export const migrations: Record<string, Migration> = {
  "0001-initial": m0001,
  "0002-dataset-settings": m0002,
  "0003-records": m0003,
  "0004-oauth": m0004oauth,
  "0005-jobs": m0005jobs,
  "0006-record-vectors-rowid": m0006,
  "0007-webhooks": m0007webhooks,
  "0008-records-fts-explicit-insert": m0008,
  "0009-record-metadata-index": m0009,
  "0010-records-fts-contentless": m0010,
  "0011-dataset-record-counts": m0011,
  "0012-record-vector-changes": m0012,
  "0013-search-index-versions": m0013,
  "0014-records-fts-deferred": m0014,
  "0015-record-status-changes": m0015,
  "0016-records-fts-own-file": m0016,
  "0017-text-search-changes": m0017,
  "0018-user-sessions-and-key-digests": m0018sessions,
  "0019-record-final-answers": m0019finalAnswers,
  "0020-record-reservations": m0020reservations,
  "0021-record-vector-exact": m0021,
  "0022-uploads": m0022uploads,
  "0023-dataset-answer-versions": m0023,
  "0024-text-ranked-ahead": m0024,
  "0025-record-search": m0025,
  "0028-records-fts-inline": m0028,
  "0030-records-fts-seq-buckets": m0030,
  "0031-record-search-words-terms": m0031,
  "0032-text-vocabulary": m0032,
  "0034-similarity-hnsw-dropped": m0034,
  "0035-record-sort-keys": m0035,
  "0036-sort-indexes": m0036,
  "0037-records-fts-field": m0037,
  "0038-metadata-term-counts": m0038,
  "0039-record-vector-words": m0039,
  "0040-text-ranked-counts": m0040,
  "0041-dataset-response-counts": m0041,
  "0042-records-fts-bucket-index-dropped": m0042,
  "0043-user-answer-versions": m0043,
  "0044-user-answer-changes": m0044,
};

export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };
