import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { DatasetSchema } from "./dataset-schema.js";
import { chunks, INCLUDE_CHUNK, wantedVectors, type Include } from "./read.js";
import { vectorJson } from "./vector-json.js";
import { vectorRows } from "./vector-rows.js";

/**
 * The `vectors` object of records `ids` (what withIncludes puts on each record when `include.vectors` asks for
 * vectors) as JSON text, by record id: `{}` for a record without vectors, the names in the order a JavaScript object
 * built from the rows keeps them. Written from the stored blobs (vector-json.ts), without the arrays of numbers.
 */
export async function vectorsJsonByRecord(
  db: Kysely<DB>,
  schema: DatasetSchema,
  ids: string[],
  include: Include,
): Promise<Map<string, string>> {
  const byRecord = new Map<string, Record<string, string>>(ids.map((id) => [id, {}]));
  const names = wantedVectors(schema, include);
  if (include.vectors && names.size > 0)
    for (const part of chunks(ids, INCLUDE_CHUNK))
      for (const row of await vectorRows(db, part, [...names.keys()]))
        byRecord.get(row.record_id)![names.get(row.vector_settings_id)!] = vectorJson(row.vector, row.exact);
  const out = new Map<string, string>();
  for (const [id, vectors] of byRecord) {
    const entries = Object.keys(vectors).map((name) => `${JSON.stringify(name)}:${vectors[name]}`);
    out.set(id, `{${entries.join(",")}}`);
  }
  return out;
}
