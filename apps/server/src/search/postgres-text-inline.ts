import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { BackgroundLoop } from "./background-loop.js";
import { queryRows } from "./postgres-sql.js";

/** Records (seqs) rewritten per batch: ~0.4 s at 1M bench records on a loaded machine (2,500 records/s). */
const BATCH_SEQS = 1000;
/** How long the job rests after a batch, as a share of the batch's own time (1: at most half a core). */
const REST_SHARE = 1;
/** How often the job looks for work when it has none (an upgrade's rows are all rewritten: it stops). */
const TICK_MS = 1000;

/**
 * Rewrites the `records_fts` rows written before migration 0028 so that their tsvectors move into their
 * rows (`STORAGE MAIN`): PostgreSQL applies a column's storage to the values it writes, so the rows of a
 * database upgraded with 1M records would otherwise keep their out-of-line tsvectors, and the text
 * searches that read them their cost (issue 31; docs/performance.md), until each record was edited.
 *
 * The range is `records_fts_inline` (next_seq .. last_seq, written by the migration; no row: nothing to
 * do). A batch, in one transaction: the row locked `FOR UPDATE SKIP LOCKED` (one replica at a time; the
 * others skip), the range's records whose tsvector is still out of line (`pg_column_toast_chunk_id`)
 * updated to the same tsvector (`|| ''`: a new value, which PostgreSQL then stores inline), `next_seq`
 * moved on; the row is deleted after the last batch. Each batch commits: a restart or a stop resumes
 * where the last one ended. Searches go on meanwhile (the values are the same; the rows are locked for
 * one batch only), and so do imports (new records are inline already). At 1M bench records: ~7 minutes
 * at full speed (2,500 records/s at load 5), ~14 with the rest between batches; the table grows by the
 * tsvectors moved in (+2.3 GB), and the TOAST table's space becomes free space in it (VACUUM FULL in a
 * maintenance window gives it back to the file system).
 */
export class PostgresTextInline {
  private stopped = false;
  /** No work left (the row is gone): the job stops looking. */
  private done = false;
  /** Whether PostgreSQL has pg_column_toast_chunk_id (14+). */
  private toastChunkId: Promise<boolean> | null = null;
  private readonly loop = new BackgroundLoop(async () => {
    if (this.done) this.loop.finish();
    else await this.run();
  }, backgroundErrorLogger("PostgreSQL: moving text search vectors into their rows failed"));

  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: { batchSeqs?: number; restShare?: number; tickMs?: number } = {},
  ) {}

  /** Rows rewritten by this process (tests, diagnostics). */
  rewritten = 0;

  /**
   * One batch; false when there was nothing to do (no range left, or another replica holds it).
   */
  async batch(): Promise<boolean> {
    const size = this.options.batchSeqs ?? BATCH_SEQS;
    return this.db.transaction().execute(async (trx) => {
      const rows = await queryRows<{ next: number | string; last: number | string }>(
        trx,
        "SELECT next_seq AS next, last_seq AS last FROM records_fts_inline WHERE id = 1 FOR UPDATE SKIP LOCKED",
        [],
      );
      const range = rows[0];
      if (!range) {
        const left = await queryRows<{ n: number | string }>(trx, "SELECT count(*) AS n FROM records_fts_inline", []);
        if (Number(left[0]?.n ?? 0) === 0) this.done = true;
        return false;
      }
      const next = Number(range.next);
      const last = Number(range.last);
      if (next > last) {
        await sql`DELETE FROM records_fts_inline WHERE id = 1`.execute(trx);
        this.done = true;
        return false;
      }
      const end = Math.min(last, next + size - 1);
      // pg_column_toast_chunk_id is PostgreSQL 14's: on 13 every row of the range is written again.
      this.toastChunkId ??= queryRows<{ v: number | string }>(trx, "SELECT current_setting('server_version_num') AS v", []).then(
        (r) => Number(r[0]?.v ?? 0) >= 140000,
      );
      const outOfLine = (await this.toastChunkId) ? sql`AND pg_column_toast_chunk_id(tsv) IS NOT NULL` : sql``;
      // Rows a writer holds (a record's fields being edited: its rows are written again, inline) are
      // skipped rather than waited for, so that the batch never waits, nor deadlocks with a bulk update.
      const updated = await sql`UPDATE records_fts SET tsv = tsv || ''::tsvector
          WHERE (record_seq, field) IN (SELECT record_seq, field FROM records_fts
            WHERE record_seq >= ${next} AND record_seq <= ${end} ${outOfLine}
            FOR UPDATE SKIP LOCKED)`.execute(trx);
      this.rewritten += Number(updated.numAffectedRows ?? 0);
      if (end >= last) await sql`DELETE FROM records_fts_inline WHERE id = 1`.execute(trx);
      else await sql`UPDATE records_fts_inline SET next_seq = ${end + 1} WHERE id = 1`.execute(trx);
      return true;
    });
  }

  /** Runs batches until none is left or `stop`, resting REST_SHARE of each batch's time after it. */
  async run(): Promise<void> {
    while (!this.stopped && !this.done) {
      const started = performance.now();
      if (!(await this.batch())) return;
      const rest = (performance.now() - started) * (this.options.restShare ?? REST_SHARE);
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    }
  }

  /** Looks every TICK_MS (unref'd) until the range is done or `stop`. */
  start(): void {
    if (!this.stopped) this.loop.start(this.options.tickMs ?? TICK_MS);
  }

  /** Stops after the batch in progress (its transaction commits; the next start resumes after it). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }
}
