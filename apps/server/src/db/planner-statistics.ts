import { sql, type Kysely } from "kysely";
import type { DB } from "./schema.js";

/** The tables a bulk import fills and whose statistics the annotation queries' plans depend on. */
const TABLES = ["records", "suggestions", "responses", "record_vectors", "dataset_record_counts", "record_search"] as const;

/** The tables whose GIN indexes a bulk import fills through their pending lists (`fastupdate`, on by default). */
const GIN_TABLES = ["records", "records_fts", "record_search"] as const;

export interface PlannerStatisticsOptions {
  /** Rows written since the last ANALYZE below which nothing is done (autovacuum's own threshold is 50 + 10%). */
  minRows?: number;
  /** ... and the share of the records table they must reach (as autovacuum's analyze scale factor). */
  fraction?: number;
  /** Writes must pause for this long first, so that an import is analysed once, at its end. */
  quietMs?: number;
}

/**
 * PostgreSQL: refreshes the planner statistics of the record tables right after a bulk import,
 * instead of waiting for autovacuum (which wakes every minute, then analyses). Until then the planner
 * still sees the tables as they were before the import (e.g. empty) and picks plans for that: the
 * bench measured "my progress" at 0.9 s right after a 20K-record import, and a few ms a minute later.
 * Runs `ANALYZE` on the record tables once the written rows reach `minRows` and `fraction` of the
 * records table's estimated size, after `quietMs` without writes. Off the request path (a timer).
 * SQLite needs none (its planner does not rely on ANALYZE statistics here).
 */
export class PlannerStatistics {
  private written = 0;
  private lastWrite = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly minRows: number;
  private readonly fraction: number;
  private readonly quietMs: number;
  /** ANALYZE runs done (tests, diagnostics). */
  analyzed = 0;
  /** Pending-list pages moved into the GIN indexes' main structure by the runs (tests, diagnostics). */
  ginPagesCleaned = 0;

  constructor(
    private readonly db: Kysely<DB>,
    options: PlannerStatisticsOptions = {},
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    this.minRows = options.minRows ?? 5_000;
    this.fraction = options.fraction ?? 0.1;
    this.quietMs = options.quietMs ?? 1_000;
  }

  /** Called after records were written (committed). */
  noteWrite(rows: number): void {
    if (this.closed || rows <= 0) return;
    this.written += rows;
    this.lastWrite = Date.now();
    if (this.written >= this.minRows) this.arm(this.quietMs);
  }

  stop(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(delay: number): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.run().catch((error: unknown) => {
        if (!this.closed) this.onError(error);
      });
    }, delay);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    const quiet = Date.now() - this.lastWrite;
    if (quiet < this.quietMs) {
      this.arm(this.quietMs - quiet);
      return;
    }
    const estimate = Number(
      (await sql<{ n: number }>`select greatest(reltuples, 0)::bigint as n from pg_class where oid = 'records'::regclass`.execute(this.db))
        .rows[0]?.n ?? 0,
    );
    const written = this.written;
    if (written < this.minRows || written < this.fraction * estimate) return;
    this.written = 0;
    // SKIP_LOCKED: a table another statement holds is left to the next run. A similarity index built
    // concurrently (search/postgres-vector-index.ts, minutes at 1M vectors) holds record_vectors with the
    // lock ANALYZE needs: waiting for it kept a pool connection and the other tables' statistics waiting.
    await sql.raw(`analyze (skip_locked) ${TABLES.join(", ")}`).execute(this.db);
    this.analyzed++;
    await this.cleanGinPendingLists();
  }

  /**
   * Moves the GIN indexes' pending lists into their main structure, as a VACUUM would. An import leaves
   * up to `gin_pending_list_limit` (4 MB) of entries in each list, which every search through the index
   * reads in full until autovacuum comes (not soon for a table that only grew by its insert threshold):
   * at 1M records the lists of `record_search`'s word index (~500 pages), its terms index (~110) and
   * `records_fts`'s (~200) cost a search 3-14 ms of PostgreSQL CPU each (session 15, bench1m).
   * Only valid indexes: one being built concurrently (search/postgres-text-buckets.ts) is left alone.
   */
  private async cleanGinPendingLists(): Promise<void> {
    const tables = GIN_TABLES.map((t) => `'${t}'::regclass`).join(", ");
    const cleaned = await sql<{ pages: string | number | null }>`
      select sum(gin_clean_pending_list(i.indexrelid))::bigint as pages
      from pg_index i
      join pg_class c on c.oid = i.indexrelid
      join pg_am a on a.oid = c.relam
      where a.amname = 'gin' and i.indisvalid and i.indisready and i.indrelid in (${sql.raw(tables)})`.execute(this.db);
    this.ginPagesCleaned += Number(cleaned.rows[0]?.pages ?? 0);
  }
}
