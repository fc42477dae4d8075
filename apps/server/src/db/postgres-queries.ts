import { type Kysely, sql } from "kysely";
import type { DB } from "./schema.js";

/**
 * PostgreSQL versions of queries whose SQLite form uses JSON1 (`json_each`, `json_extract`,
 * `json_type`). Callers branch with `isPostgres(db)` and keep the result shapes of the SQLite query.
 */

/** Terms of a metadata property over a dataset's records: list values counted per item, scalars once. */
export async function metadataTermCounts(db: Kysely<DB>, datasetId: string, name: string): Promise<{ term: unknown; count: number }[]> {
  const result = await sql<{ term: string; count: number }>`
    select e.value::text as term, count(*) as count
    from records r
      cross join lateral jsonb_array_elements(case jsonb_typeof(r.metadata -> ${name}::text)
        when 'array' then r.metadata -> ${name}::text else jsonb_build_array(r.metadata -> ${name}::text) end) as e(value)
    where r.dataset_id = ${datasetId} and jsonb_typeof(r.metadata) = 'object' and r.metadata ? ${name}::text
      and jsonb_typeof(e.value) in ('string', 'number', 'boolean')
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
