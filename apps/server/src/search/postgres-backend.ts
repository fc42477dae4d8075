import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { queryRows } from "./postgres-sql.js";

/**
 * The process id of the backend of `db`'s connection (a transaction's or a connection's own). The background jobs' long
 * statements (an index build, a dataset's ranking, a vocabulary read: minutes at 1M records) are cancelled when the store
 * closes: a job notes the backend that runs one, and its `stop` cancels it there (cancelBackend).
 */
export async function backendPid(db: Kysely<DB>): Promise<number> {
  return Number((await queryRows<{ pid: number }>(db, "SELECT pg_backend_pid() AS pid", []))[0]!.pid);
}

/** Cancels the statement backend `pid` runs, if any (none: null); a failure (the backend gone meanwhile) is ignored. */
export async function cancelBackend(db: Kysely<DB>, pid: number | null): Promise<void> {
  if (pid !== null) await queryRows(db, "SELECT pg_cancel_backend($1)", [pid]).catch(() => undefined);
}
