import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { isPostgres } from "../db/dialect.js";

/** A stored vector as the serializers read it: its values as a float32 blob (little-endian, as SQLite keeps them). */
export interface VectorRow {
  record_id: string;
  vector_settings_id: string;
  vector: Buffer;
  exact: string | null;
}

/**
 * The stored vectors of records `recordIds` of the settings `settingsIds`. On PostgreSQL the `real[]` column comes
 * as `array_send`'s bytes (bytea, hex on the wire: node-postgres decodes it natively) instead of the array's text,
 * which node-postgres parses value by value in JavaScript (a page of 256 records with one 384-dimension vector:
 * ~96 ms of Node's CPU at 1M records, issue 25).
 */
export async function vectorRows(db: Kysely<DB>, recordIds: string[], settingsIds: string[]): Promise<VectorRow[]> {
  if (!isPostgres(db)) {
    return db
      .selectFrom("record_vectors")
      .select(["record_id", "vector_settings_id", "vector", "exact"])
      .where("record_id", "in", recordIds)
      .where("vector_settings_id", "in", settingsIds)
      .execute() as Promise<VectorRow[]>;
  }
  const rows = await db
    .selectFrom("record_vectors")
    .select(["record_id", "vector_settings_id", "exact", sql<Uint8Array>`array_send(vector)`.as("sent")])
    .where("record_id", "in", recordIds)
    .where("vector_settings_id", "in", settingsIds)
    .execute();
  return rows.map(({ sent, ...row }) => ({ ...row, vector: float32BlobOfArraySend(sent) }));
}

/**
 * A `real[]` in PostgreSQL's binary array form (array_send: ndim, has-nulls, element type, then per dimension its
 * length and lower bound, then per element its byte length and the big-endian float4) as a little-endian float32
 * blob; the bytes are moved, not converted, so every value (and -0, NaN's payload) comes back as stored.
 */
export function float32BlobOfArraySend(sent: Uint8Array): Buffer {
  const view = new DataView(sent.buffer, sent.byteOffset, sent.byteLength);
  const dims = view.getInt32(0);
  if (dims === 0) return Buffer.alloc(0);
  if (dims !== 1 || view.getInt32(4) !== 0)
    throw new Error(`a stored vector is not a one-dimensional real[] without nulls (${dims} dimensions)`);
  const n = view.getInt32(12);
  const out = Buffer.allocUnsafe(n * 4);
  for (let i = 0, at = 20; i < n; i++, at += 8) {
    if (view.getInt32(at) !== 4) throw new Error("a stored vector's element is not a float4");
    out[4 * i] = sent[at + 7]!;
    out[4 * i + 1] = sent[at + 6]!;
    out[4 * i + 2] = sent[at + 5]!;
    out[4 * i + 3] = sent[at + 4]!;
  }
  return out;
}
