import type { Store } from "../db/database.js";
import { PostgresSearch } from "./postgres-search.js";
import type { SearchPort } from "./search-port.js";
import type { PostgresRankAhead } from "./postgres-rank-ahead.js";
import type { PostgresTextBuckets } from "./postgres-text-buckets.js";
import type { PostgresBackgroundIndex } from "./postgres-background-index.js";
import type { PostgresMetadataSortIndexes } from "./postgres-metadata-sort.js";
import type { PostgresTextVocabulary } from "./postgres-text-vocabulary.js";
import type { PostgresTextHeadIndex } from "./postgres-text-head-index.js";
import type { PostgresVectorIndexes } from "./postgres-vector-index.js";
import { PostgresTextInline } from "./postgres-text-inline.js";
import { PostgresVectorWords } from "./postgres-vector-words.js";
import { sqliteSearchFor } from "./sqlite-search.js";

const ports = new WeakMap<Store, SearchPort>();

/** The search adapter of the store's dialect (one per store). */
export function searchFor(store: Store): SearchPort {
  if (store.dialect === "sqlite") return sqliteSearchFor(store.db);
  let port = ports.get(store);
  if (!port) {
    port = new PostgresSearch(store.db, { vectorSearch: store.vectorSearch });
    ports.set(store, port);
  }
  return port;
}

/** PostgreSQL: the background ranking of the frequent words of text search (issue 31); null on SQLite. */
export function rankAheadFor(store: Store): PostgresRankAhead | null {
  const port = searchFor(store);
  return port instanceof PostgresSearch ? port.rankAhead : null;
}

/** PostgreSQL with pgvector: the background build of the similarity (IVFFlat) indexes; null otherwise. */
export function vectorIndexesFor(store: Store): PostgresVectorIndexes | null {
  const port = searchFor(store);
  return port instanceof PostgresSearch && store.vectorSearch ? port.vectorIndexes : null;
}

/** PostgreSQL: the background build of `records_fts`'s bucket index on an upgraded database (migration 0030); null on SQLite. */
export function textBucketsFor(store: Store): PostgresTextBuckets | null {
  const port = searchFor(store);
  return port instanceof PostgresSearch ? port.textBuckets : null;
}

/** PostgreSQL: the background build of `record_search`'s index of words and terms on an upgraded database (migration 0031); null on SQLite. */
export function wordsTermsIndexFor(store: Store): PostgresBackgroundIndex | null {
  const port = searchFor(store);
  return port instanceof PostgresSearch ? port.wordsTerms : null;
}

/** PostgreSQL: the background builds of the indexes in the order of the sorts on an upgraded database (migration 0036); none on SQLite. */
export function sortIndexesFor(store: Store): PostgresBackgroundIndex[] {
  const port = searchFor(store);
  return port instanceof PostgresSearch ? port.sortIndexes : [];
}

/** PostgreSQL: the background build of `records_fts`'s index with the fields' names on an upgraded database (migration 0037); null on SQLite. */
export function textFieldIndexFor(store: Store): PostgresBackgroundIndex | null {
  const port = searchFor(store);
  return port instanceof PostgresSearch ? port.textField : null;
}

/** PostgreSQL: the indexes of records in each metadata property's order, kept in step with the properties in the background; null on SQLite. */
export function metadataSortIndexesFor(store: Store): PostgresMetadataSortIndexes | null {
  const port = searchFor(store);
  return port instanceof PostgresSearch ? port.metadataSorts : null;
}

/** PostgreSQL: the background read of the datasets' vocabularies for prefixes; null on SQLite. */
export function textVocabularyFor(store: Store): PostgresTextVocabulary | null {
  const port = searchFor(store);
  return port instanceof PostgresSearch ? port.textVocabulary : null;
}

/** PostgreSQL: the background read of the completed heads' text; null on SQLite. */
export function textHeadIndexFor(store: Store): PostgresTextHeadIndex | null {
  const port = searchFor(store);
  return port instanceof PostgresSearch ? port.headIndex : null;
}

/** One background job of a kind per PostgreSQL store (created on first use); null on SQLite. */
function postgresJob<T extends object>(jobs: WeakMap<Store, T>, store: Store, create: (db: Store["db"]) => T): T | null {
  if (store.dialect === "sqlite") return null;
  let job = jobs.get(store);
  if (!job) {
    job = create(store.db);
    jobs.set(store, job);
  }
  return job;
}

const inlines = new WeakMap<Store, PostgresTextInline>();

/** PostgreSQL: the background rewrite of the text vectors written before migration 0028 into their rows; null on SQLite. */
export function textInlineFor(store: Store): PostgresTextInline | null {
  return postgresJob(inlines, store, (db) => new PostgresTextInline(db));
}

const vectorWords = new WeakMap<Store, PostgresVectorWords>();

/** PostgreSQL with pgvector: the background fill of the word signatures of the vectors written before migration 0039; null otherwise. */
export function vectorWordsFor(store: Store): PostgresVectorWords | null {
  return store.vectorSearch ? postgresJob(vectorWords, store, (db) => new PostgresVectorWords(db)) : null;
}
