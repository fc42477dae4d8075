import type { Kysely, SelectQueryBuilder, UpdateQueryBuilder, UpdateResult } from "kysely";
import type { DB } from "../db/schema.js";
import { now } from "../clock.js";
import { PermanentJobError, type EnqueueOptions, type Job, type JobHandler, type JobQueue } from "./port.js";
import { failureMessage as message, findJob, queuedJobRow, runJob, toJob, type JobRow } from "./job-rows.js";

export interface EmbeddedJobQueueOptions {
  /** Jobs run at the same time in this process (default 1: the embedded store has one writer). */
  concurrency?: number;
  /** Runs per job when the handler throws a retryable error (default 3, as the contract's RQ jobs). */
  maxAttempts?: number;
  /** Delay before retry n is `retryDelayMs * n` (default 5000). */
  retryDelayMs?: number;
  /** Called with failures the queue could not record (never throws out of the runner). */
  onError?: (error: unknown) => void;
  /** Claim only jobs of these types (a queue dedicated to them, e.g. webhook deliveries). */
  onlyTypes?: string[];
  /** Never claim jobs of these types (another queue on the same table runs them). */
  exceptTypes?: string[];
}

/**
 * The in-process queue on the embedded store: jobs are rows of `jobs`, claimed with a conditional
 * update (so a job never runs twice), run by registered handlers, and left `finished` with their
 * result or `failed` with the error message. Survives restarts: jobs left `started` by a shutdown
 * are queued again on start (handlers must be idempotent; the Hub import upserts by external id).
 */
export class EmbeddedJobQueue implements JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private controller = new AbortController();
  private started = false;
  private pumping = false;
  private again = false;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: EmbeddedJobQueueOptions = {},
  ) {
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.retryDelayMs = Math.max(0, options.retryDelayMs ?? 5000);
  }

  register<P, R>(type: string, handler: JobHandler<P, R>): void {
    this.handlers.set(type, handler as JobHandler);
  }

  /** Restricts a query on `jobs` to the types this queue runs (`onlyTypes` / `exceptTypes`). */
  private mine<Q extends SelectQueryBuilder<DB, "jobs", object> | UpdateQueryBuilder<DB, "jobs", "jobs", UpdateResult>>(query: Q): Q {
    let q = query as SelectQueryBuilder<DB, "jobs", object>;
    if (this.options.onlyTypes) q = q.where("type", "in", this.options.onlyTypes.length > 0 ? this.options.onlyTypes : [""]);
    if (this.options.exceptTypes && this.options.exceptTypes.length > 0) q = q.where("type", "not in", this.options.exceptTypes);
    return q as Q;
  }

  async enqueue(type: string, payload: unknown, options: EnqueueOptions = {}): Promise<Job> {
    const row = queuedJobRow(type, payload, Math.max(1, options.maxAttempts ?? this.maxAttempts));
    await this.db.insertInto("jobs").values(row).execute();
    this.kick();
    return toJob(row);
  }

  async get(id: string): Promise<Job | null> {
    return findJob(this.db, id);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.controller = new AbortController();
    await this.mine(this.db.updateTable("jobs").set({ status: "queued", updated_at: now() }).where("status", "=", "started")).execute();
    this.kick();
  }

  async stop(): Promise<void> {
    this.started = false;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.controller.abort(new Error("The server is shutting down"));
    await Promise.allSettled([...this.running.values()]);
  }

  private kick(): void {
    if (!this.started) return;
    void this.pump().catch((error: unknown) => this.options.onError?.(error));
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        await this.pumpOnce();
      } while (this.again && this.started);
    } finally {
      this.pumping = false;
    }
  }

  private async pumpOnce(): Promise<void> {
    while (this.started && this.running.size < this.concurrency) {
      const row = await this.claim();
      if (!row) break;
      const run = this.run(row).finally(() => {
        this.running.delete(row.id);
        this.kick();
      });
      this.running.set(row.id, run);
    }
    // Wake up for the earliest delayed retry.
    const next = await this.mine(this.db.selectFrom("jobs").select("run_after").where("status", "=", "queued"))
      .orderBy("run_after")
      .limit(1)
      .executeTakeFirst();
    if (next && this.started && this.running.size < this.concurrency) {
      const delay = Math.max(0, Date.parse(`${next.run_after}Z`) - Date.now());
      if (delay <= 0) {
        this.again = true; // became due meanwhile: claim it in the next round
      } else {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.kick();
        }, delay);
        this.timers.add(timer);
      }
    }
  }

  /** Takes the oldest due queued job, atomically (the update only succeeds while it is still queued). */
  private async claim(): Promise<JobRow | null> {
    for (;;) {
      const candidate = await this.mine(
        this.db.selectFrom("jobs").selectAll().where("status", "=", "queued").where("run_after", "<=", now()),
      )
        .orderBy("run_after")
        .orderBy("inserted_at")
        .limit(1)
        .executeTakeFirst();
      if (!candidate) return null;
      const timestamp = now();
      const claimed = await this.db
        .updateTable("jobs")
        .set({ status: "started", attempts: candidate.attempts + 1, started_at: timestamp, updated_at: timestamp })
        .where("id", "=", candidate.id)
        .where("status", "=", "queued")
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 1)
        return { ...candidate, status: "started", attempts: candidate.attempts + 1, started_at: timestamp };
    }
  }

  private async run(row: JobRow): Promise<void> {
    const signal = this.controller.signal;
    try {
      await runJob(this.db, this.handlers, row, { jobId: row.id, attempt: row.attempts, signal });
    } catch (error) {
      try {
        await this.recordFailure(row, error, signal.aborted);
      } catch (recordError) {
        this.options.onError?.(recordError);
      }
    }
  }

  private async recordFailure(row: JobRow, error: unknown, interrupted: boolean): Promise<void> {
    const timestamp = now();
    if (interrupted) {
      // Shutdown: queue it again (without counting the attempt) so the next start resumes it.
      await this.db
        .updateTable("jobs")
        .set({ status: "queued", attempts: row.attempts - 1, updated_at: timestamp })
        .where("id", "=", row.id)
        .execute();
      return;
    }
    const retry = !(error instanceof PermanentJobError) && row.attempts < row.max_attempts;
    if (retry) {
      const runAfter = new Date(Date.now() + this.retryDelayMs * row.attempts).toISOString().replace("Z", "");
      await this.db
        .updateTable("jobs")
        .set({ status: "queued", error: message(error), run_after: runAfter, updated_at: timestamp })
        .where("id", "=", row.id)
        .execute();
      return;
    }
    await this.db
      .updateTable("jobs")
      .set({ status: "failed", error: message(error), finished_at: timestamp, updated_at: timestamp })
      .where("id", "=", row.id)
      .execute();
  }
}
