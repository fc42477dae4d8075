import { type Kysely, sql } from "kysely";
import type { DB } from "./schema.js";

/**
 * PostgreSQL versions of queries whose SQLite form uses JSON1 (`json_each`, `json_extract`,
 * `json_type`). Callers branch with `isPostgres(db)` and keep the result shapes of the SQLite query.
 */

/**
 * Terms of a metadata property over a dataset's records: list values counted per item, scalars once. Read from
 * `record_search` (migration 0025: each record's metadata, kept by the records' triggers; ~70 bytes a row against
 * ~1.4 KB in `records`) and grouped by the property's whole value before its lists are expanded (a few distinct
 * values, not one row per item): 0.8-1.6 s at 1M records where expanding every record of `records` took 3.5 s
 * (load 3.5-4.5). No other filter than the dataset: `metadata -> name` is null when the metadata is no object or
 * lacks the name (no term), and PostgreSQL's estimate of `metadata ? name` (0.2% of the rows for 100%) sorted 1M
 * values on disk instead (3.3 s). An index of the property's order cannot count: PostgreSQL reads no expression
 * index index-only, and fetching each entry's row cost 2 us a record.
 */
export async function metadataTermCounts(db: Kysely<DB>, datasetId: string, name: string): Promise<{ term: unknown; count: number }[]> {
  const result = await sql<{ term: string; count: number | string }>`
    select e.value::text as term, sum(g.n) as count
    from (select r.metadata -> ${name}::text as v, count(*) as n from record_search r where r.dataset_id = ${datasetId} group by 1) g
      cross join lateral jsonb_array_elements(case jsonb_typeof(g.v) when 'array' then g.v else jsonb_build_array(g.v) end) as e(value)
    where jsonb_typeof(e.value) in ('string', 'number', 'boolean')
    group by e.value order by count desc, e.value asc`.execute(db);
  return result.rows.map((r) => ({ term: JSON.parse(r.term) as unknown, count: Number(r.count) }));
}

/** Minimum and maximum of the numeric values of a metadata property over a dataset's records. */
export async function metadataNumberRange(
  db: Kysely<DB>,
  datasetId: string,
  name: string,
): Promise<{ min: number | null; max: number | null }> {
  const result = await sql<{ min: number | null; max: number | null }>`
    select min((r.metadata ->> ${name}::text)::float8) as min, max((r.metadata ->> ${name}::text)::float8) as max
    from records r
    where r.dataset_id = ${datasetId} and jsonb_typeof(r.metadata) = 'object' and jsonb_typeof(r.metadata -> ${name}::text) = 'number'`.execute(
    db,
  );
  return { min: result.rows[0]?.min ?? null, max: result.rows[0]?.max ?? null };
}
