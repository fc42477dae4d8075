import type { Kysely } from "kysely";

/**
 * `record_vectors.exact` (both stores): how a vector's values come back exactly as they were sent,
 * next to the float32 blob that similarity search reads (records/read.ts vectorExact): null when the
 * blob's shortest decimals are the values (existing rows, rounded embeddings), "f32" when the values
 * are float32 values (a model's embeddings), else the values as JSON text.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("record_vectors").addColumn("exact", "text").execute();
}
