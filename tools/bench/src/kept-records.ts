import { createRequire } from "node:module";
import { join } from "node:path";

type Database = { prepare(sql: string): { raw(): { all(...p: unknown[]): unknown[][] } }; close(): void };
const SQLite = createRequire(new URL("../../../apps/server/package.json", import.meta.url))("better-sqlite3") as new (
  file: string,
  options: { readonly: boolean },
) => Database;

/**
 * The record ids of a dataset imported by an earlier run (`--keep-data`), by the index of the bench's
 * generator (external id `bench-<i>`), read from the embedded store's file (read-only, beside the
 * running server): what a recall measurement on `--data-dir` compares with the regenerated vectors.
 */
export function keptRecordIds(dataDir: string, datasetId: string): string[] {
  const db = new SQLite(join(dataDir, "tessera.db"), { readonly: true });
  try {
    const ids: string[] = [];
    for (const [id, external] of db.prepare("SELECT id, external_id FROM records WHERE dataset_id = ?").raw().all(datasetId)) {
      const i = /^bench-(\d+)$/.exec(String(external))?.[1];
      if (i !== undefined) ids[Number(i)] = String(id);
    }
    for (let i = 0; i < ids.length; i++) if (ids[i] === undefined) throw new Error(`record bench-${i} is missing from the kept dataset`);
    return ids;
  } finally {
    db.close();
  }
}
