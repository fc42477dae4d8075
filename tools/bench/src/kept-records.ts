import { createRequire } from "node:module";
import { join } from "node:path";
import pg from "pg";

type Database = { prepare(sql: string): { raw(): { all(...p: unknown[]): unknown[][] } }; close(): void };
const SQLite = createRequire(new URL("../../../apps/server/package.json", import.meta.url))("better-sqlite3") as new (
  file: string,
  options: { readonly: boolean },
) => Database;

const SQL = "SELECT id, external_id FROM records WHERE dataset_id = $1";

/**
 * The record ids of a dataset imported by an earlier run (`--keep-data`), by the index of the bench's
 * generator (external id `bench-<i>`), read from the embedded store's file (read-only, beside the
 * running server): what a recall measurement on `--data-dir` compares with the regenerated vectors.
 */
export function keptRecordIds(dataDir: string, datasetId: string): string[] {
  const db = new SQLite(join(dataDir, "tessera.db"), { readonly: true });
  try {
    return byGeneratorIndex(db.prepare(SQL.replace("$1", "?")).raw().all(datasetId));
  } finally {
    db.close();
  }
}

/** keptRecordIds of a kept PostgreSQL dataset (`--postgres URL --data-dir DIR`), from its database. */
export async function keptRecordIdsPostgres(databaseUrl: string, datasetId: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return byGeneratorIndex((await client.query<unknown[]>({ text: SQL, values: [datasetId], rowMode: "array" })).rows);
  } finally {
    await client.end();
  }
}

/** Rows of (id, external id) as ids by the generator's index; every index up to the largest must be there. */
export function byGeneratorIndex(rows: unknown[][]): string[] {
  const ids: string[] = [];
  for (const [id, external] of rows) {
    const i = /^bench-(\d+)$/.exec(String(external))?.[1];
    if (i !== undefined) ids[Number(i)] = String(id);
  }
  for (let i = 0; i < ids.length; i++) if (ids[i] === undefined) throw new Error(`record bench-${i} is missing from the kept dataset`);
  return ids;
}
