import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, queryRows } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { SEQ_BUCKET } from "./postgres-text-walk.js";
import { firstWithStatusSql, lastWithStatusSql } from "./postgres-first-with-status.js";

/**
 * `records_fts`'s buckets (record_seq / 1024, postgres-text-buckets.ts) the records of a record status filter without
 * `pending` may span at most for a text search to start from them (issues 25 and 31), as the embedded store's
 * sqlite-text-candidates.ts: the text's GIN entry read in those buckets only. A completed head (bench1m: 18,140 completed
 * records, the first in seq order, 18 buckets) gives a word in 12% of the records 2,189 rows, ranked in ~20-38 ms; the
 * other paths ranked the text's matches until enough of them were completed (221-672 ms p95). Beyond (completed records
 * spread through the dataset), the other paths.
 */
export const STATUS_BUCKETS_MAX = 64;

/** The record status filter without `pending` whose records a text search starts from, if any. */
export function statusFilter(filters: SearchFilter[]): SearchFilter | null {
  return (
    filters.find(
      (f) =>
        f.type === "terms" &&
        f.scope.entity === "record" &&
        f.scope.property === "status" &&
        f.values.length > 0 &&
        !f.values.includes("pending"),
    ) ?? null
  );
}

/**
 * The `records_fts` buckets spanned by the records of the dataset a record status filter without `pending` passes: from
 * their first to their last seq (two probes of records_dataset_status_seq_idx; enumerating 18,140 completed records took
 * 25-77 ms at 1M), when at most `max` buckets (empty: no such record); else, or without such a filter, null.
 */
export async function statusBuckets(db: Kysely<DB>, query: SearchQuery, max = STATUS_BUCKETS_MAX): Promise<number[] | null> {
  const filter = statusFilter(query.filters);
  if (!filter || filter.type !== "terms") return null;
  const b = new Builder(null);
  const dataset = b.p(query.datasetId);
  const statuses = filter.values.map((v) => `${b.p(String(v))}::text`);
  // Each status's first and last record through the status index (postgres-first-with-status.ts): `min(seq) ... status IN`
  // read the completed head row by row in seq order under statistics that still say every record pending.
  const row = (
    await queryRows<{ lo: number | string | null; hi: number | string | null }>(
      db,
      `SELECT LEAST(${statuses.map((s) => firstWithStatusSql(dataset, s)).join(", ")}) AS lo,
        GREATEST(${statuses.map((s) => lastWithStatusSql(dataset, s)).join(", ")}) AS hi`,
      b.params,
    )
  )[0];
  if (row?.lo == null || row.hi == null) return [];
  const lo = Math.floor(Number(row.lo) / SEQ_BUCKET);
  const hi = Math.floor(Number(row.hi) / SEQ_BUCKET);
  return hi - lo + 1 > max ? null : Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
}
