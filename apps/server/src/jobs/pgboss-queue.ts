import { PgBoss, type Job as BossJob } from "pg-boss";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { now } from "../clock.js";
import { PermanentJobError, type EnqueueOptions, type Job, type JobHandler, type JobQueue } from "./port.js";
import { failureMessage as message, findJob, queuedJobRow, runJob, toJob, type JobRow } from "./job-rows.js";

export interface PgBossJobQueueOptions {
  /** Runs per job when the handler throws a retryable error (default 3, as the embedded queue). */
  maxAttempts?: number;
  /** Delay before a retry (default 5000 ms; pg-boss counts whole seconds, at least 1). */
  retryDelayMs?: number;
  /** A running job whose replica stops sending heartbeats this long is retried elsewhere (default 30 s, at least 10). */
  heartbeatSeconds?: number;
  /** How often the supervisor looks for such jobs (default 10 s). */
  superviseIntervalSeconds?: number;
  /** How often an idle worker polls (default 2 s; new jobs also wake workers at once through LISTEN/NOTIFY). */
  pollingIntervalSeconds?: number;
  /** Jobs run at the same time per replica and job type (default 1). */
  concurrency?: number;
  /** Per job type overrides of `concurrency` (webhook deliveries run four at a time). */
  concurrencyByType?: Record<string, number>;
  onError?: (error: unknown) => void;
}

interface BossPayload {
  jobId: string;
}

const deadLetterOf = (type: string) => `${type}__dead`;
export const CRASHED_TOO_OFTEN = "The job was interrupted too many times (the replicas running it stopped)";

/**
 * The job queue on PostgreSQL: the `jobs` table stays the record every replica reads (status,
 * result, error: `GET /api/v1/jobs/{id}` answers the same on any replica), and pg-boss distributes
 * the runs: any replica's worker claims a job (SKIP LOCKED), a failed run is retried after the
 * delay, and a run whose replica died (no heartbeat for `heartbeatSeconds`) is retried by another
 * replica. A job that exhausts its retries that way lands in a dead-letter queue whose worker marks
 * it failed. Handlers must be idempotent (the Hub import upserts by external id).
 *
 * Latency: a pg-boss worker waits its polling interval after every fetch, even one that returned a
 * job, so a backlog would drain one job per interval (2 s) per worker. Workers are therefore woken
 * to fetch again as soon as they finish a job, and new jobs wake them at once (LISTEN/NOTIFY across
 * replicas, and directly on the replica that queued them); polling is only the floor (retries).
 *
 * A job queued while pg-boss is not running here (before `start`, after `stop`: e.g. webhook events
 * still being enqueued during a shutdown) stays `queued` in `jobs`; `start` hands such rows to
 * pg-boss (sending is idempotent: pg-boss keeps one job per id).
 */
export class PgBossJobQueue implements JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly queues = new Set<string>();
  private readonly boss: PgBoss;
  private readonly maxAttempts: number;
  private readonly retryDelaySeconds: number;
  private readonly heartbeatSeconds: number;
  private started = false;
  private controller = new AbortController();
  /** pg-boss worker ids per job type on this replica (to wake them). */
  private readonly workers = new Map<string, string[]>();

  constructor(
    private readonly db: Kysely<DB>,
    databaseUrl: string,
    private readonly options: PgBossJobQueueOptions = {},
  ) {
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 3);
    this.retryDelaySeconds = Math.max(1, Math.round((options.retryDelayMs ?? 5000) / 1000));
    this.heartbeatSeconds = Math.max(10, options.heartbeatSeconds ?? 30);
    this.boss = new PgBoss({
      connectionString: databaseUrl,
      schema: "pgboss",
      max: 4,
      application_name: "tessera-jobs",
      superviseIntervalSeconds: Math.max(1, options.superviseIntervalSeconds ?? 10),
      schedule: false,
      useListenNotify: true,
    });
    this.boss.on("error", (error) => options.onError?.(error));
  }

  register<P, R>(type: string, handler: JobHandler<P, R>): void {
    this.handlers.set(type, handler as JobHandler);
    if (this.started) void this.workOn(type).catch((error: unknown) => this.options.onError?.(error));
  }

  async enqueue(type: string, payload: unknown, options: EnqueueOptions = {}): Promise<Job> {
    const maxAttempts = Math.max(1, options.maxAttempts ?? this.maxAttempts);
    const row = queuedJobRow(type, payload, maxAttempts);
    await this.db.insertInto("jobs").values(row).execute();
    if (!this.started) return toJob(row); // pg-boss is not running here: start() sends it
    try {
      await this.send(row);
    } catch (error) {
      if (!this.started) return toJob(row); // stopped meanwhile: start() sends it
      await this.db
        .updateTable("jobs")
        .set({ status: "failed", error: `The job could not be queued: ${message(error)}`, finished_at: now(), updated_at: now() })
        .where("id", "=", row.id)
        .execute();
      throw error;
    }
    this.wake(type);
    return toJob(row);
  }

  private async send(row: Pick<JobRow, "id" | "type" | "max_attempts">): Promise<void> {
    await this.ensureQueue(row.type);
    await this.boss.send(row.type, { jobId: row.id } satisfies BossPayload, {
      id: row.id,
      retryLimit: row.max_attempts - 1,
      retryDelay: this.retryDelaySeconds,
      heartbeatSeconds: this.heartbeatSeconds,
      expireInSeconds: 6 * 60 * 60,
      deadLetter: deadLetterOf(row.type),
    });
  }

  /** Makes this replica's idle workers of `type` fetch now instead of at their next poll. */
  private wake(type: string): void {
    for (const id of this.workers.get(type) ?? []) this.boss.notifyWorker(id);
  }

  async get(id: string): Promise<Job | null> {
    return findJob(this.db, id);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.controller = new AbortController();
    await this.boss.start();
    this.started = true;
    for (const type of this.handlers.keys()) await this.workOn(type);
    // Rows queued while pg-boss was not running (here or on a replica that stopped before sending them).
    // A row already sent is left alone by pg-boss (same id); one that ran has attempts > 0.
    const unsent = await this.db
      .selectFrom("jobs")
      .select(["id", "type", "max_attempts"])
      .where("status", "=", "queued")
      .where("attempts", "=", 0)
      .orderBy("inserted_at")
      .execute();
    for (const row of unsent) await this.send(row);
    for (const type of new Set(unsent.map((row) => row.type))) this.wake(type);
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.controller.abort(new Error("The server is shutting down"));
    await this.boss.stop({ graceful: true, close: true, timeout: 10_000 });
    this.queues.clear();
    this.workers.clear();
  }

  /** Stops this replica's workers but keeps queueing (e.g. a web-only replica; tests prove other replicas run the jobs). */
  async pauseWorkers(): Promise<void> {
    for (const type of this.handlers.keys()) {
      await this.boss.offWork(type, { wait: true });
      await this.boss.offWork(deadLetterOf(type), { wait: true });
      this.workers.delete(type);
    }
  }

  /** Simulates a replica that dies mid-job (tests): stops at once without settling running jobs. */
  async crash(): Promise<void> {
    this.started = false;
    this.workers.clear();
    await this.boss.stop({ graceful: false, close: true, timeout: 1000 });
  }

  private async ensureQueue(type: string): Promise<void> {
    if (this.queues.has(type)) return;
    const dead = deadLetterOf(type);
    await this.createQueue(dead, {});
    await this.createQueue(type, { deadLetter: dead });
    this.queues.add(type);
  }

  /** Creates the queue with NOTIFY on new jobs (turned on for a queue made before it was used). */
  private async createQueue(name: string, options: { deadLetter?: string }): Promise<void> {
    const existing = await this.boss.getQueue(name);
    if (existing) {
      if (!existing.notify) await this.boss.updateQueue(name, { notify: true });
      return;
    }
    try {
      await this.boss.createQueue(name, { ...options, notify: true });
    } catch (error) {
      // Another replica created it at the same moment.
      if (!(await this.boss.getQueue(name))) throw error;
    }
  }

  private async workOn(type: string): Promise<void> {
    await this.ensureQueue(type);
    const concurrency = Math.max(1, this.options.concurrencyByType?.[type] ?? this.options.concurrency ?? 1);
    const ids: string[] = [];
    for (let i = 0; i < concurrency; i++) ids.push(await this.workOne(type, async (job) => this.run(job)));
    this.workers.set(type, ids);
    await this.workOne(deadLetterOf(type), (job) => this.markFailed(job.data.jobId, CRASHED_TOO_OFTEN, true));
  }

  /**
   * One pg-boss worker (one job at a time) that fetches again as soon as it settled a job: without
   * the wake-up it would wait a whole polling interval after each job. The polling interval stays the
   * same when NOTIFY is active (pg-boss would relax it to 30 s), since retries become due without one.
   */
  private async workOne(name: string, handle: (job: BossJob<BossPayload>) => Promise<void>): Promise<string> {
    const polling = Math.max(0.5, this.options.pollingIntervalSeconds ?? 2);
    const worker = { id: "" }; // known once work() returns, before its first fetch can come back
    worker.id = await this.boss.work<BossPayload>(
      name,
      { batchSize: 1, pollingIntervalSeconds: polling, notifyPollingIntervalSeconds: polling },
      async (jobs) => {
        try {
          for (const job of jobs) await handle(job);
        } finally {
          if (worker.id) this.boss.notifyWorker(worker.id);
        }
      },
    );
    return worker.id;
  }

  private async markFailed(jobId: string, error: string, onlyUnsettled = false): Promise<void> {
    let update = this.db
      .updateTable("jobs")
      .set({ status: "failed", error, finished_at: now(), updated_at: now() })
      .where("id", "=", jobId);
    if (onlyUnsettled) update = update.where("status", "not in", ["finished", "failed"]);
    await update.execute();
  }

  private async run(job: BossJob<BossPayload>): Promise<void> {
    const row = await this.db.selectFrom("jobs").selectAll().where("id", "=", job.data.jobId).executeTakeFirst();
    if (!row || row.status === "finished" || row.status === "failed") return;
    const attempt = job.retryCount + 1;
    const timestamp = now();
    await this.db
      .updateTable("jobs")
      .set({ status: "started", attempts: attempt, started_at: timestamp, updated_at: timestamp })
      .where("id", "=", row.id)
      .execute();
    const signal = AbortSignal.any([this.controller.signal, job.signal]);
    try {
      await runJob(this.db, this.handlers, row, { jobId: row.id, attempt, signal });
    } catch (error) {
      if (error instanceof PermanentJobError) {
        await this.markFailed(row.id, message(error));
        return; // settled: pg-boss must not retry it
      }
      const retry = signal.aborted || attempt < row.max_attempts;
      if (retry) {
        await this.db
          .updateTable("jobs")
          .set({ status: "queued", error: signal.aborted ? row.error : message(error), updated_at: now() })
          .where("id", "=", row.id)
          .execute();
      } else {
        await this.markFailed(row.id, message(error));
      }
      throw error; // pg-boss retries it (or records the final failure)
    }
  }
}
