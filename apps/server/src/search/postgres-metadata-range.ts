import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { literal, metadataSortKey } from "./postgres-metadata-sort.js";
import { queryRows } from "./postgres-sql.js";

/**
 * jsonb's order puts every number between the strings and `false` (strings < numbers < booleans < arrays <
 * objects); -1e309 is below every number the plain query can answer (its `::float8` cast rejects the rest, and a
 * JSON number from the server's JSON.parse is a finite double).
 */
const NUMBERS = (key: string) => `${key} >= '-1e309'::jsonb AND ${key} < 'false'::jsonb`;

/**
 * The min and max of a metadata property's numeric values from its index in the property's order
 * (postgres-metadata-sort.ts, valid): the first and the last number in it, two index probes (0.5 ms at 1M
 * records where the plain query, db/postgres-queries.ts metadataNumberRange, read every record's metadata: 1.4 s
 * p50). The same answer: the key is `metadata -> name` (JSON null as SQL null, which is no number), numbers in
 * jsonb compare by value, and the cast to float8 keeps their order. Key and dataset inlined so that the planner
 * matches the index's expression and proves its predicate.
 */
export async function indexedNumberRange(
  db: Kysely<DB>,
  datasetId: string,
  name: string,
): Promise<{ min: number | null; max: number | null }> {
  const rows = await queryRows<{ min: number | null; max: number | null }>(db, numberRangeSql(datasetId, name), []);
  return { min: rows[0]?.min ?? null, max: rows[0]?.max ?? null };
}

/** indexedNumberRange's statement. */
export function numberRangeSql(datasetId: string, name: string): string {
  const key = metadataSortKey("r", name);
  const end = (dir: "ASC" | "DESC") =>
    `(SELECT (${key} #>> '{}')::float8 FROM records r WHERE r.dataset_id = ${literal(datasetId)} AND ${NUMBERS(key)} ORDER BY ${key} ${dir} LIMIT 1)`;
  return `SELECT ${end("ASC")} AS min, ${end("DESC")} AS max`;
}
