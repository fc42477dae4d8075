import { join } from "node:path";
import { type Database, SQLite } from "./sqlite-script.ts";

export type { Statement } from "./sqlite-script.ts";

/**
 * A kept data directory's store opened read-only as the server opens it (text-steps.ts, answered-steps.ts): `tessera.db`
 * with the text index attached as `fts`, and the server's ranking extension (apps/server/native, rank-extension.ts)
 * loaded when built (`ranker`).
 */
export function openKept(dataDir: string): { db: Database; ranker: boolean } {
  const db = new SQLite(join(dataDir, "tessera.db"), { readonly: true });
  db.prepare("ATTACH DATABASE ? AS fts").run(join(dataDir, "tessera-fts.db"));
  try {
    db.loadExtension(new URL("../../../apps/server/native/build/tessera_rank.so", import.meta.url).pathname);
    return { db, ranker: true };
  } catch {
    return { db, ranker: false };
  }
}

/** CPU ms of this process spent in `f`, and its value. */
export const cpu = <T>(f: () => T): { ms: number; value: T } => {
  const before = process.cpuUsage();
  const value = f();
  const used = process.cpuUsage(before);
  return { ms: Math.round((used.user + used.system) / 100) / 10, value };
};
