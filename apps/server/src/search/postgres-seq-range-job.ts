import { sql, type Kysely, type Transaction } from "kysely";
import type { DB } from "../db/schema.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { BackgroundLoop } from "./background-loop.js";
import { queryRows } from "./postgres-sql.js";

/** How long a job rests after a batch, as a share of the batch's own time (1: at most half a core). */
const REST_SHARE = 1;
/** How often a job looks for work when it has none (its range is done: it stops). */
const TICK_MS = 1000;

export interface SeqRangeJobOptions {
  batchSeqs?: number;
  restShare?: number;
  tickMs?: number;
}

/**
 * A background rewrite of the rows a migration left to do, by ranges of records' seqs: the range is one row of
 * `table` (id 1: next_seq .. last_seq, written by the migration; no row: nothing to do). A batch, in one
 * transaction: the row locked `FOR UPDATE SKIP LOCKED` (one replica at a time; the others skip), `rewrite` of
 * the batch's seqs, `next_seq` moved on; the row is deleted after the last batch. Each batch commits: a restart
 * or a stop resumes where the last one ended.
 */
export abstract class SeqRangeJob {
  private stopped = false;
  /** No work left (the row is gone): the job stops looking. */
  private done = false;
  private readonly loop: BackgroundLoop;

  constructor(
    protected readonly db: Kysely<DB>,
    private readonly table: string,
    private readonly defaultBatchSeqs: number,
    failure: string,
    private readonly options: SeqRangeJobOptions = {},
  ) {
    this.loop = new BackgroundLoop(async () => {
      if (this.done) this.loop.finish();
      else await this.run();
    }, backgroundErrorLogger(failure));
  }

  /** Rewrites the rows of the seqs next..end in the batch's transaction; the rows written. */
  protected abstract rewrite(trx: Transaction<DB>, next: number, end: number): Promise<number>;

  /** One batch; false when there was nothing to do (no range left, or another replica holds it). */
  async batch(): Promise<boolean> {
    const size = this.options.batchSeqs ?? this.defaultBatchSeqs;
    return this.db.transaction().execute(async (trx) => {
      const rows = await queryRows<{ next: number | string; last: number | string }>(
        trx,
        `SELECT next_seq AS next, last_seq AS last FROM ${this.table} WHERE id = 1 FOR UPDATE SKIP LOCKED`,
        [],
      );
      const range = rows[0];
      if (!range) {
        const left = await queryRows<{ n: number | string }>(trx, `SELECT count(*) AS n FROM ${this.table}`, []);
        if (Number(left[0]?.n ?? 0) === 0) this.done = true;
        return false;
      }
      const next = Number(range.next);
      const last = Number(range.last);
      if (next > last) {
        await sql`DELETE FROM ${sql.table(this.table)} WHERE id = 1`.execute(trx);
        this.done = true;
        return false;
      }
      const end = Math.min(last, next + size - 1);
      this.written += await this.rewrite(trx, next, end);
      if (end >= last) await sql`DELETE FROM ${sql.table(this.table)} WHERE id = 1`.execute(trx);
      else await sql`UPDATE ${sql.table(this.table)} SET next_seq = ${end + 1} WHERE id = 1`.execute(trx);
      return true;
    });
  }

  /** Rows written by this process (tests, diagnostics). */
  written = 0;

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
