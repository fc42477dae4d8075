/**
 * better-sqlite3 for the bench's scripts that read a kept data directory directly (text-steps.ts,
 * vec-binary.ts): the server's copy of the module (the bench has none of its own), typed as far as they use it.
 */
import { createRequire } from "node:module";

export type Statement = {
  all(...p: unknown[]): unknown[];
  get(...p: unknown[]): unknown;
  run(...p: unknown[]): unknown;
  iterate(...p: unknown[]): Iterable<unknown>;
  pluck(): Statement;
  raw(): Statement;
};
export type Database = {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  loadExtension(file: string): void;
  transaction<F extends (...a: never[]) => unknown>(f: F): F;
};

/** `require` from the server's package: its better-sqlite3 and sqlite-vec. */
export const serverRequire = createRequire(new URL("../../../apps/server/package.json", import.meta.url));
export const SQLite = serverRequire("better-sqlite3") as new (file: string, options?: { readonly?: boolean }) => Database;
