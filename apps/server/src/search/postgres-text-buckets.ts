import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { advisoryKey } from "../reservations/transaction.js";
import { BackgroundLoop } from "./background-loop.js";
import { BUCKET_INDEX, BUCKET_INDEX_SQL, WORDS_INDEX } from "../db/migrations/postgres/0030-records-fts-seq-buckets.js";
import { queryRows } from "./postgres-sql.js";

const TICK_MS = 5_000;
/** How long a search keeps the answer "not valid yet" (a replica sees another's build within this). */
const READY_TTL_MS = 2_000;
/** How long the words-only index stays next to a valid bucket index: other replicas' searches look again meanwhile (READY_TTL_MS). */
const REPLACED_MS = 5 * READY_TTL_MS;

/**
 * The bucket index of `records_fts` on a database upgraded with records (migration 0030 builds it only
 * on an empty table), built in the background: `CREATE INDEX CONCURRENTLY` on a connection of its own,
 * so writes to `records_fts` go on during the build (in the migration's transaction it held them for
 * the whole build: 96 s at 1M records with 1 GB of maintenance_work_mem). Until the index is valid,
 * searches keep the words-only index and its paths (`ready` false: postgres-text-walk.ts's probe, walk
 * or whole index, as before 0030), then take the buckets; REPLACED_MS later the words-only index is
 * dropped (`DROP INDEX CONCURRENTLY`), so that inserts update one GIN index of the words again. An
 * advisory lock keeps two replicas from building it at once; a build stopped or failed leaves an
 * invalid index, dropped and built again at the next start.
 */
export class PostgresTextBuckets {
  private stopped = false;
  private valid = false;
  private seen: { valid: boolean; at: number } | null = null;
  private validSince: number | null = null;
  /** The backend running the build, cancelled by `stop` (minutes at 1M records). */
  private backend: number | null = null;
  private readonly loop = new BackgroundLoop(
    () => this.tick(),
    backgroundErrorLogger("PostgreSQL: building the text index on record ranges failed"),
  );

  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: { tickMs?: number; replacedMs?: number } = {},
  ) {}

  /** Whether the bucket index is valid (from the catalog: another replica may have built it); true stays true. */
  async ready(): Promise<boolean> {
    if (this.valid) return true;
    if (this.seen && Date.now() - this.seen.at < READY_TTL_MS) return this.seen.valid;
    const valid = (await this.state()).bucket === true;
    this.seen = { valid, at: Date.now() };
    if (valid) this.valid = true;
    return valid;
  }

  /** The two indexes in the catalog: null when absent, else whether valid. */
  private async state(db: Kysely<DB> = this.db): Promise<{ bucket: boolean | null; words: boolean | null }> {
    const rows = await queryRows<{ name: string; valid: boolean | number }>(
      db,
      "SELECT c.relname AS name, i.indisvalid AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname IN ($1, $2)",
      [BUCKET_INDEX, WORDS_INDEX],
    );
    // The store reads booleans as 1/0 (SQLite's), pg's own client as booleans.
    const of = (name: string) => {
      const row = rows.find((r) => r.name === name);
      return row ? Boolean(row.valid) : null;
    };
    return { bucket: of(BUCKET_INDEX), words: of(WORDS_INDEX) };
  }

  /** Builds the bucket index if missing or invalid, else drops the words-only index once REPLACED_MS have passed; then stops looking. */
  async tick(): Promise<void> {
    const state = await this.state();
    if (state.bucket === true) {
      this.valid = true;
      if (state.words === null) return this.loop.finish();
      this.validSince ??= Date.now();
      if (Date.now() - this.validSince < (this.options.replacedMs ?? REPLACED_MS) || this.stopped) return;
      await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${WORDS_INDEX}`).execute(this.db);
      return this.loop.finish();
    }
    await this.build();
  }

  /** One build (CREATE INDEX CONCURRENTLY runs outside a transaction: one connection for the lock and the build). */
  private async build(): Promise<void> {
    await this.db.connection().execute(async (conn) => {
      const key = advisoryKey(`text-index:${BUCKET_INDEX}`);
      const locked = await queryRows<{ ok: boolean; pid: number }>(
        conn,
        `SELECT pg_try_advisory_lock(${key}) AS ok, pg_backend_pid() AS pid`,
        [],
      );
      if (!locked[0]?.ok) return; // another replica builds it
      this.backend = Number(locked[0].pid);
      try {
        const state = await this.state(conn);
        if (state.bucket === true || this.stopped) return;
        if (state.bucket === false) await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${BUCKET_INDEX}`).execute(conn);
        await sql.raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${BUCKET_INDEX} ON records_fts ${BUCKET_INDEX_SQL}`).execute(conn);
        this.valid = true;
      } finally {
        this.backend = null;
        // A cancelled statement does not end the session: the lock is released here (and with the session).
        await sql
          .raw(`SELECT pg_advisory_unlock(${key})`)
          .execute(conn)
          .catch(() => undefined);
      }
    });
  }

  /** Looks every TICK_MS (unref'd) until the words-only index is dropped, or `stop`. */
  start(): void {
    if (!this.stopped) this.loop.start(this.options.tickMs ?? TICK_MS);
  }

  /** Stops looking, cancels a build in progress (the next start builds it again) and waits for it to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    const running = this.loop.stop();
    if (this.backend !== null) await queryRows(this.db, "SELECT pg_cancel_backend($1)", [this.backend]).catch(() => undefined);
    await running;
  }
}
