import { sql, type Kysely } from "kysely";

/**
 * Whether an error means "the database cannot be reached right now" (PostgreSQL restarting, failing
 * over, a connection dropped or refused, no free connection slot), as opposed to an error in the
 * request or a bug. Requests that meet one answer 503 with Retry-After (http/errors.ts); the pool
 * replaces the dead connections by itself on the next queries.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    // An HTTP call of ours (Hub, webhooks) that could not connect is not the database.
    if (e instanceof TypeError && e.message === "fetch failed") return false;
    if (e instanceof AggregateError && e.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith("08") || NETWORK_CODES.has(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

/**
 * PostgreSQL error codes (SQLSTATE) of an unavailable server, besides class 08 (connection exception):
 * admin_shutdown (pg_terminate_backend, a fast shutdown), crash_shutdown (another backend crashed),
 * cannot_connect_now (starting up, in recovery), too_many_connections, read_only_sql_transaction
 * (a write reached a standby during a failover), database_dropped.
 */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "25006", "57P04"]);
/** Node's socket errors. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ECONNABORTED",
]);
/** node-postgres and Kysely errors that carry no code. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
  /^Client was closed and is not queryable/,
  /^Postgres connection has been discarded/,
  /^Connection terminated due to connection timeout/,
];

/** The message of the innermost cause of an error (what actually failed, under wrappers such as the migrator's). */
export function rootMessage(error: unknown): string {
  let e = error;
  for (let depth = 0; depth < 5 && e instanceof Error && e.cause !== undefined; depth++) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

/**
 * An error logger for background work (job queue, webhook events, the pool): an unavailable
 * database is logged as one line, at most once a second (an outage fails every poll and every
 * connection at once, with the same cause); any other error in full, as before.
 */
export function backgroundErrorLogger(label: string): (error: unknown) => void {
  let last = 0;
  let suppressed = 0;
  return (error) => {
    if (!isDatabaseUnavailable(error)) {
      console.error(`${label}:`, error);
      return;
    }
    const at = Date.now();
    if (at - last < 1000) {
      suppressed++;
      return;
    }
    console.error(
      `${label}: the database is unavailable (${rootMessage(error)})${suppressed ? `, ${suppressed} more such errors since the last report` : ""}`,
    );
    last = at;
    suppressed = 0;
  };
}

/** The message of the 503 that requests caught in a database outage get. */
export const DATABASE_UNAVAILABLE_MESSAGE =
  "The database is unavailable right now (PostgreSQL is restarting or a connection to it was lost). " +
  "Try again in a few seconds; a write caught in the outage was stored whole or not at all.";
/** Retry-After (seconds) of that 503: the pool reconnects on the next request once PostgreSQL is back. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The code db/postgres.ts gives a pool's "timeout exceeded when trying to connect" when PostgreSQL
 * was reachable and every connection of the pool stayed in use for the whole wait: the server is
 * overloaded, not the database down. Still "unavailable" for `isDatabaseUnavailable` (background work
 * treats both alike); requests answer 503 with the busy message and a shorter Retry-After.
 */
export const POOL_BUSY_CODE = "TESSERA_POOL_BUSY";
export const isPoolBusy = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === POOL_BUSY_CODE;
export const POOL_BUSY_MESSAGE =
  "The server is busy: every database connection stayed in use while this request waited for one. " +
  "Nothing of the request was done; try again in a moment.";
export const POOL_BUSY_RETRY_AFTER_SECONDS = 2;

export interface DatabaseStatus {
  reachable: boolean;
  latency_ms: number;
  error?: string;
}

/** Runs `select 1` (at most `timeoutMs`): whether the database answers now, and how fast. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Kysely instance, whatever its table types
export async function databaseStatus(db: Kysely<any>, timeoutMs = 2000): Promise<DatabaseStatus> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      sql`select 1`.execute(db),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { reachable: true, latency_ms: Math.round(performance.now() - started) };
  } catch (error) {
    return {
      reachable: false,
      latency_ms: Math.round(performance.now() - started),
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    clearTimeout(timer);
  }
}
