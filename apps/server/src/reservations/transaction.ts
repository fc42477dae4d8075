import type { Kysely, Transaction } from "kysely";
import type { DB } from "../db/schema.js";
import { isPostgres } from "../db/dialect.js";

/** PostgreSQL errors after which a transaction is worth running again: serialization failure, deadlock. */
const RETRIED = new Set(["40001", "40P01"]);
const ATTEMPTS = 4;

/**
 * Runs `work` in a transaction; on PostgreSQL, runs it again (a few times) when the database
 * aborted it as a deadlock victim or a serialization failure, which concurrent reservations of one
 * annotator (two tabs) can cause. SQLite has one writer and never needs it.
 */
export async function withRetriedTransaction<T>(db: Kysely<DB>, work: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  if (!isPostgres(db)) return db.transaction().execute(work);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= ATTEMPTS || typeof code !== "string" || !RETRIED.has(code)) throw error;
      await new Promise((r) => setTimeout(r, 5 * attempt * Math.random()));
    }
  }
}
