import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { DatasetSchema } from "./dataset-schema.js";
import type { JsonBytes } from "./json-bytes.js";
import { chunks, INCLUDE_CHUNK, wantedVectors, type Include } from "./read.js";
import { writeVectorJson } from "./vector-json.js";
import { vectorRows, type VectorRow } from "./vector-rows.js";

/** A record's stored vectors by name, in the order a JavaScript object built from its rows keeps the names. */
export type RecordVectors = Array<[name: string, row: VectorRow]>;

/**
 * The stored vectors of records `ids` that `include` asks for (what withIncludes puts on each record as `vectors`),
 * by record id, every id with its list (empty without vectors), for writeVectorsJson.
 */
export async function vectorsByRecord(
  db: Kysely<DB>,
  schema: DatasetSchema,
  ids: string[],
  include: Include,
): Promise<Map<string, RecordVectors>> {
  const byRecord = new Map<string, Record<string, VectorRow>>(ids.map((id) => [id, {}]));
  const names = wantedVectors(schema, include);
  if (include.vectors && names.size > 0)
    for (const part of chunks(ids, INCLUDE_CHUNK))
      for (const row of await vectorRows(db, part, [...names.keys()]))
        byRecord.get(row.record_id)![names.get(row.vector_settings_id)!] = row;
  const out = new Map<string, RecordVectors>();
  for (const [id, vectors] of byRecord)
    out.set(
      id,
      Object.keys(vectors).map((name) => [name, vectors[name]!]),
    );
  return out;
}

/** A record's `vectors` object as withIncludes gives it to JSON.stringify, written from the stored blobs (vector-json.ts). */
export function writeVectorsJson(out: JsonBytes, vectors: RecordVectors): void {
  out.text("{");
  vectors.forEach(([name, row], i) => {
    out.text(`${i > 0 ? "," : ""}${JSON.stringify(name)}:`);
    writeVectorJson(out, row.vector, row.exact);
  });
  out.text("}");
}
