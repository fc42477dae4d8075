import { type Kysely, sql } from "kysely";
import type { DB } from "./schema.js";

/**
 * PostgreSQL versions of queries whose SQLite form uses JSON1 (`json_each`, `json_extract`,
 * `json_type`). Callers branch with `isPostgres(db)` and keep the result shapes of the SQLite query.
 */

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
