import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";

/**
 * SQLite: metrics of a metadata property (observed terms with their counts, or min/max), computed
 * once per dataset and property and then brought up to date with the records inserted since
 * (`seq` above the last one seen): the annotation page asks for them on opening, and scanning
 * every record's metadata JSON cost 0.6-0.8 s of CPU per property at 1M records. Exact: an update
 * of a record's metadata or dataset, or a delete, bumps the dataset's `search_index_versions` row
 * (migration 0013), which makes the next call recompute from scratch. Kept per process (a
 * WeakMap per database handle); term lists longer than MAX_CACHED_TERMS are not kept. The records
 * are folded in seq ranges of CHUNK_SEQS, one transaction each, so that a first computation at 1M
 * records does not hold the connection for seconds; search/warm-up.ts computes them after imports.
 */
export interface TermCount {
  term: unknown;
  count: number;
}

interface Entry<T> {
  version: number;
  upTo: number;
  value: T;
}
const MAX_CACHED_TERMS = 10_000;
/** Seqs folded per transaction (~0.1 s of CPU at the bench's metadata). */
const CHUNK_SEQS = 100_000;
const caches = new WeakMap<object, Map<string, Entry<unknown>>>();

function cacheOf(db: Kysely<DB>): Map<string, Entry<unknown>> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

async function datasetState(db: Kysely<DB>, datasetId: string): Promise<{ version: number; first: number; last: number }> {
  return (
    await sql<{ version: number; first: number; last: number }>`SELECT
      coalesce((SELECT version FROM search_index_versions WHERE dataset_id = ${datasetId}), 0) AS version,
      coalesce((SELECT min(seq) FROM records WHERE dataset_id = ${datasetId}), 0) AS first,
      coalesce((SELECT max(seq) FROM records WHERE dataset_id = ${datasetId}), 0) AS last`.execute(db)
  ).rows[0]!;
}

/** How a metric is kept: its cache key, its value before any record, and how records fold into it. */
interface Fold<T> {
  key: string;
  empty: () => T;
  /** Folds the records with from < seq <= to into the value. */
  add: (trx: Kysely<DB>, value: T, from: number, to: number) => Promise<T>;
  /** Whether the value is worth keeping (long term lists are not). */
  keep: (value: T) => boolean;
}

/**
 * The cached value of `fold` brought up to the dataset's current state, the records folded in a seq
 * range of at most `chunkSeqs` per transaction, each checking the dataset's version (a change starts
 * over). Null, with nothing computed, when starting over (no value cached at the current version)
 * would fold a seq span of `fromScratchBelow` or more.
 */
async function upToDate<T>(
  db: Kysely<DB>,
  datasetId: string,
  fold: Fold<T>,
  chunkSeqs: number,
  fromScratchBelow = Number.POSITIVE_INFINITY,
): Promise<T | null> {
  const cache = cacheOf(db);
  let entry: Entry<T> | undefined;
  for (let finished = false; !finished;) {
    // The handle the cache is keyed by; each transaction runs on the same connection.
    const step = await db.transaction().execute(async (trx) => {
      const { version, first, last } = await datasetState(trx, datasetId);
      const base = entry ?? (cache.get(fold.key) as Entry<T> | undefined);
      const current = base !== undefined && base.version === version && base.upTo <= last;
      if (!current && entry === undefined && last - first >= fromScratchBelow) return "skip";
      let e: Entry<T> = current ? base : { version, upTo: Math.max(0, first - 1), value: fold.empty() };
      const to = Math.min(last, e.upTo + chunkSeqs);
      if (to > e.upTo) e = { version, upTo: to, value: await fold.add(trx, e.value, e.upTo, to) };
      entry = e;
      return to >= last ? "done" : "more";
    });
    if (step === "skip") return null;
    finished = step === "done";
  }
  if (fold.keep(entry!.value)) cache.set(fold.key, entry!);
  else cache.delete(fold.key);
  return entry!.value;
}

/** The seq span a dataset may have for `followMetrics` to compute metrics from scratch. */
const FOLLOW_FROM_SCRATCH = 20_000;

/**
 * After a write: the property's metrics brought up to date if they are cached at the dataset's
 * current version (the new records folded in), or computed while the dataset is small (from the
 * start of an import); else left to the warm-up (search/warm-up.ts). Returns whether it ran.
 */
export async function followMetrics(
  db: Kysely<DB>,
  datasetId: string,
  name: string,
  kind: "terms" | "range",
  fromScratchBelow = FOLLOW_FROM_SCRATCH,
): Promise<boolean> {
  if (kind === "terms") return (await upToDate(db, datasetId, termsFold(datasetId, name), CHUNK_SEQS, fromScratchBelow)) !== null;
  return (await upToDate(db, datasetId, rangeFold(datasetId, name), CHUNK_SEQS, fromScratchBelow)) !== null;
}

/** The seq up to which a property's metrics are cached in this process (null: not cached), for tests. */
export function cachedMetricsUpTo(db: Kysely<DB>, datasetId: string, name: string, kind: "terms" | "range"): number | null {
  return cacheOf(db).get(`${datasetId}\u0000${name}\u0000${kind}`)?.upTo ?? null;
}

const pathOf = (name: string) => `$."${name}"`; // names match ^[a-z0-9_-]+$, so the quoted path is safe
const termKey = (term: unknown) => (typeof term === "number" ? `n${term}` : `${typeof term}${String(term)}`);

/** SQLite's order of the terms json_each yields: numbers by value, then text by UTF-8 bytes. */
function compareTerms(a: unknown, b: unknown): number {
  const rank = (v: unknown) => (v === null ? 0 : typeof v === "number" ? 1 : 2);
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (typeof a === "number" && typeof b === "number") return a - b;
  return Buffer.compare(Buffer.from(String(a)), Buffer.from(String(b)));
}

/** The terms of a property with their counts, by term key. */
function termsFold(datasetId: string, name: string): Fold<Map<string, TermCount>> {
  const path = pathOf(name);
  return {
    key: `${datasetId}\u0000${name}\u0000terms`,
    empty: () => new Map<string, TermCount>(),
    add: async (trx, value, from, to) => {
      // json_each walks a list value's items, or yields a scalar value once.
      const rows = await sql<{ term: unknown; count: number }>`
        select j.value as term, count(*) as count
        from records r, json_each(r.metadata, ${path}) j
        where r.dataset_id = ${datasetId} and r.seq > ${from} and r.seq <= ${to} and r.metadata is not null and json_valid(r.metadata)
          and j.type not in ('null', 'object', 'array')
        group by j.value`.execute(trx);
      const next = new Map(value);
      for (const row of rows.rows) {
        const key = termKey(row.term);
        const seen = next.get(key);
        next.set(key, { term: seen ? seen.term : row.term, count: (seen?.count ?? 0) + Number(row.count) });
      }
      return next;
    },
    keep: (value) => value.size <= MAX_CACHED_TERMS,
  };
}

/** The min and max of a property's numeric values. */
function rangeFold(datasetId: string, name: string): Fold<{ min: number | null; max: number | null }> {
  const path = pathOf(name);
  return {
    key: `${datasetId}\u0000${name}\u0000range`,
    empty: () => ({ min: null, max: null }),
    add: async (trx, value, from, to) => {
      const row = (
        await sql<{ min: number | null; max: number | null }>`
        select min(json_extract(r.metadata, ${path})) as min, max(json_extract(r.metadata, ${path})) as max
        from records r
        where r.dataset_id = ${datasetId} and r.seq > ${from} and r.seq <= ${to} and r.metadata is not null and json_valid(r.metadata)
          and json_type(r.metadata, ${path}) in ('integer', 'real')`.execute(trx)
      ).rows[0];
      const pick = (a: number | null, b: number | null | undefined, f: (x: number, y: number) => number) =>
        b === null || b === undefined ? a : a === null ? b : f(a, b);
      return { min: pick(value.min, row?.min, Math.min), max: pick(value.max, row?.max, Math.max) };
    },
    keep: () => true,
  };
}

/** Every observed term with its count, by count (descending) then term (ascending), as `group by ... order by count desc, term asc`. */
export async function termMetrics(db: Kysely<DB>, datasetId: string, name: string, chunkSeqs = CHUNK_SEQS): Promise<TermCount[]> {
  const counts = (await upToDate(db, datasetId, termsFold(datasetId, name), chunkSeqs))!;
  return [...counts.values()].sort((a, b) => b.count - a.count || compareTerms(a.term, b.term));
}

/** Min and max of the property's numeric (integer or real) values. */
export async function numberRange(
  db: Kysely<DB>,
  datasetId: string,
  name: string,
  chunkSeqs = CHUNK_SEQS,
): Promise<{ min: number | null; max: number | null }> {
  return (await upToDate(db, datasetId, rangeFold(datasetId, name), chunkSeqs))!;
}
