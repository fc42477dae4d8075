import { type Kysely, sql } from "kysely";
import type { DB } from "./schema.js";
import { isPostgres } from "./dialect.js";

/** True when a table exists (lets code run before and after a later migration lands). */
export async function tableExists(db: Kysely<DB>, name: string): Promise<boolean> {
  const result = isPostgres(db)
    ? await sql<{
        n: number;
      }>`select count(*) as n from information_schema.tables where table_schema = current_schema() and table_name = ${name}`.execute(db)
    : await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'table' and name = ${name}`.execute(db);
  return Number(result.rows[0]?.n ?? 0) > 0;
}

/** True for a UNIQUE / PRIMARY KEY violation raised by the store (a concurrent duplicate insert). */
export function isUniqueViolation(error: unknown): boolean {
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : "";
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}

/**
 * Runs a write that may race a concurrent duplicate (the caller checked first): a UNIQUE / PRIMARY KEY
 * violation becomes `duplicate()` (the contract's 409 or 422), any other error passes through.
 */
export async function writeUnique<T>(write: () => Promise<T>, duplicate: () => Error): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate();
    throw error;
  }
}
