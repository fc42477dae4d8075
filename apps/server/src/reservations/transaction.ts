import { createHash } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";

/** PostgreSQL errors after which a transaction is worth running again: serialization failure, deadlock. */
const RETRIED = new Set(["40001", "40P01"]);
const ATTEMPTS = 4;

/**
 * PostgreSQL: runs `work` on one connection in a transaction whose BEGIN goes in one round trip with
 * `opening` (statements without parameters, e.g. taking an advisory lock), then COMMIT; rolled back
 * on error and run again (a few times) when the database aborted it as a deadlock victim or a
 * serialization failure, which concurrent reservations of one annotator (two tabs) can cause. Under
 * load every round trip waits for a turn of the server's event loop while the transaction holds its
 * locks and one of the pool's connections: this saves one.
 */
export async function withRetriedPostgresTransaction<T>(
  db: Kysely<DB>,
  opening: string,
  work: (conn: Kysely<DB>) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.connection().execute(async (conn) => {
        // no parameters: node-postgres sends it by the simple protocol, which takes several statements
        await sql.raw(`BEGIN; ${opening}`).execute(conn);
        try {
          const result = await work(conn);
          await sql.raw("COMMIT").execute(conn);
          return result;
        } catch (error) {
          await sql
            .raw("ROLLBACK")
            .execute(conn)
            .catch(() => undefined); // a lost connection: the server rolled it back
          throw error;
        }
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= ATTEMPTS || typeof code !== "string" || !RETRIED.has(code)) throw error;
      await new Promise((r) => setTimeout(r, 5 * attempt * Math.random()));
    }
  }
}

/** A PostgreSQL advisory lock key (signed 64-bit, as an SQL literal) for a name: the same on every replica. */
export function advisoryKey(name: string): string {
  return createHash("sha256").update(name).digest().readBigInt64BE(0).toString();
}
