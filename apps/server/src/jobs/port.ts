/**
 * The job queue port. The embedded store runs jobs in-process (`EmbeddedJobQueue`); a PostgreSQL
 * deployment can implement the same port with pg-boss so that any replica runs them.
 */
export type JobStatus = "queued" | "started" | "finished" | "failed";

export interface Job {
  id: string;
  type: string;
  status: JobStatus;
  payload: unknown;
  result: unknown;
  error: string | null;
  attempts: number;
  insertedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface JobContext {
  jobId: string;
  /** 1 for the first run, 2 for the first retry, ... */
  attempt: number;
  /** Aborted when the server shuts down: stop at the next safe point and throw. */
  signal: AbortSignal;
}

export type JobHandler<P = unknown, R = unknown> = (payload: P, context: JobContext) => Promise<R>;

export interface EnqueueOptions {
  /** Total runs allowed when the handler throws a retryable error (default: the queue's). */
  maxAttempts?: number;
}

export interface JobQueue {
  /** Binds a handler to a job type; a job of an unknown type fails. */
  register<P, R>(type: string, handler: JobHandler<P, R>): void;
  enqueue(type: string, payload: unknown, options?: EnqueueOptions): Promise<Job>;
  get(id: string): Promise<Job | null>;
  /** Starts running queued jobs (jobs interrupted by a previous shutdown run again). */
  start(): Promise<void>;
  /** Stops claiming jobs, aborts running ones and waits for them to settle. */
  stop(): Promise<void>;
}

/** A failure that retrying cannot fix (bad input, missing dataset): the job fails at once. */
export class PermanentJobError extends Error {
  override name = "PermanentJobError";
}
