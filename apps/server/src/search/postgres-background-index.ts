import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { advisoryKey } from "../reservations/transaction.js";
import { BackgroundLoop } from "./background-loop.js";
import { queryRows } from "./postgres-sql.js";
import { cancelBackend } from "./postgres-backend.js";

const TICK_MS = 5_000;
/** How long a search keeps the answer "not valid yet" (a replica sees another's build within this). */
const READY_TTL_MS = 2_000;
/** How long the replaced indexes stay next to a valid new one: other replicas' searches look again meanwhile (READY_TTL_MS). */
const REPLACED_MS = 5 * READY_TTL_MS;

/** An index a migration creates only on an empty table, and the server builds in the background on a table with rows. */
export interface BackgroundIndexSpec {
  /** The new index. */
  index: string;
  table: string;
  /** What follows `ON table` (`USING gin (...)`), as the migration creates it. */
  definition: string;
  /** The indexes it replaces, dropped once it is valid (REPLACED_MS later). */
  replaces: string[];
  /** What the log says when a build fails. */
  what: string;
  /**
   * An index serving every lookup of this one: while it is valid this one counts as valid (`ready`), is not built, and
   * its replaced indexes are dropped as if it were (the other's spec drops this one: migration 0042).
   */
  supersededBy?: string;
}

/**
 * An index of a database upgraded with rows (its migration builds it only on an empty table), built in
 * the background: `CREATE INDEX CONCURRENTLY` on a connection of its own, so writes to the table go on
 * during the build (in a migration's transaction the build held them: 96 s for migration 0030's index at
 * 1M records with 1 GB of maintenance_work_mem, and the server's start with it). Until the index is valid,
 * searches keep the indexes it replaces and their paths (`ready` false), then take it; REPLACED_MS later
 * the replaced indexes are dropped (`DROP INDEX CONCURRENTLY`), so that inserts update one index again.
 * An advisory lock keeps two replicas from building it at once; a build stopped or failed leaves an
 * invalid index, dropped and built again at the next start. `after`: a build waits until it is true
 * (one heavy build at a time).
 */
export class PostgresBackgroundIndex {
  private stopped = false;
  private valid = false;
  private seen: { valid: boolean; at: number } | null = null;
  private validSince: number | null = null;
  /** The backend running the build, cancelled by `stop` (minutes at 1M records). */
  private backend: number | null = null;
  private readonly loop: BackgroundLoop;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly spec: BackgroundIndexSpec,
    private readonly options: { tickMs?: number; replacedMs?: number; after?: () => Promise<boolean> } = {},
  ) {
    this.loop = new BackgroundLoop(() => this.tick(), backgroundErrorLogger(`PostgreSQL: building ${spec.what} failed`));
  }

  /** Whether the index is valid (from the catalog: another replica may have built it); true stays true. */
  async ready(): Promise<boolean> {
    if (this.valid) return true;
    if (this.seen && Date.now() - this.seen.at < READY_TTL_MS) return this.seen.valid;
    const valid = (await this.state()).index === true;
    this.seen = { valid, at: Date.now() };
    if (valid) this.valid = true;
    return valid;
  }

  /**
   * The index in the catalog (null when absent, else whether valid; true when the index superseding it is valid) and
   * whether any replaced index remains.
   */
  private async state(db: Kysely<DB> = this.db): Promise<{ index: boolean | null; replaced: boolean }> {
    const { index, replaces, supersededBy } = this.spec;
    const rows = await queryRows<{ name: string; valid: boolean | number }>(
      db,
      "SELECT c.relname AS name, i.indisvalid AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = ANY($1::text[])",
      [`{${[index, ...replaces, ...(supersededBy ? [supersededBy] : [])].join(",")}}`],
    );
    // The store reads booleans as 1/0 (SQLite's), pg's own client as booleans.
    const valid = (name: string | undefined) => rows.some((r) => r.name === name && Boolean(r.valid));
    const own = rows.find((r) => r.name === index);
    return {
      index: valid(supersededBy) ? true : own ? Boolean(own.valid) : null,
      replaced: rows.some((r) => replaces.includes(r.name)),
    };
  }

  /** Builds the index if missing or invalid, else drops the replaced ones once REPLACED_MS have passed; then stops looking. */
  async tick(): Promise<void> {
    const state = await this.state();
    if (state.index === true) {
      this.valid = true;
      if (!state.replaced) return this.loop.finish();
      this.validSince ??= Date.now();
      if (Date.now() - this.validSince < (this.options.replacedMs ?? REPLACED_MS) || this.stopped) return;
      for (const old of this.spec.replaces) await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${old}`).execute(this.db);
      return this.loop.finish();
    }
    if (this.options.after && !(await this.options.after())) return;
    await this.build();
  }

  /** One build (buildConcurrently). */
  private async build(): Promise<void> {
    const built = await buildConcurrently(this.db, {
      index: this.spec.index,
      lock: `text-index:${this.spec.index}`,
      create: `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${this.spec.index} ON ${this.spec.table} ${this.spec.definition}`,
      valid: async (conn) => (await this.state(conn)).index,
      stopped: () => this.stopped,
      backend: (pid) => {
        this.backend = pid;
      },
    });
    if (built) this.valid = true;
  }

  /** Looks every TICK_MS (unref'd) until the replaced indexes are dropped, or `stop`. */
  start(): void {
    if (!this.stopped) this.loop.start(this.options.tickMs ?? TICK_MS);
  }

  /** Stops looking, cancels a build in progress (the next start builds it again) and waits for it to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    const running = this.loop.stop();
    await cancelBackend(this.db, this.backend);
    await running;
  }
}

/**
 * One build of an index by `create` (CREATE INDEX CONCURRENTLY runs outside a transaction: one connection for the
 * lock and the build), unless another replica holds the advisory lock `lock`, the index is valid (`valid`: null when
 * absent) or the job `stopped`; an invalid one is dropped first. `backend`: the building backend (for a cancel), then
 * null. True when built here.
 */
export async function buildConcurrently(
  db: Kysely<DB>,
  job: {
    index: string;
    lock: string;
    create: string;
    valid: (conn: Kysely<DB>) => Promise<boolean | null>;
    stopped: () => boolean;
    backend: (pid: number | null) => void;
  },
): Promise<boolean> {
  return db.connection().execute(async (conn) => {
    const key = advisoryKey(job.lock);
    const locked = await queryRows<{ ok: boolean; pid: number }>(
      conn,
      `SELECT pg_try_advisory_lock(${key}) AS ok, pg_backend_pid() AS pid`,
      [],
    );
    if (!locked[0]?.ok) return false; // another replica builds it
    job.backend(Number(locked[0].pid));
    try {
      const valid = await job.valid(conn);
      if (valid === true || job.stopped()) return false;
      if (valid === false) await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${job.index}`).execute(conn);
      await sql.raw(job.create).execute(conn);
      return true;
    } finally {
      job.backend(null);
      // A cancelled statement does not end the session: the lock is released here (and with the session).
      await sql
        .raw(`SELECT pg_advisory_unlock(${key})`)
        .execute(conn)
        .catch(() => undefined);
    }
  });
}
