import { randomUUID } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import type { DB, JobsTable } from "../db/schema.js";
import { now } from "../clock.js";
import { PermanentJobError, type Job, type JobContext, type JobHandler } from "./port.js";

/**
 * The `jobs` table as both queue adapters use it (the record of every job's status, result and
 * error, whichever adapter runs it).
 */
export type JobRow = Selectable<JobsTable>;

export const toJob = (row: JobRow): Job => ({
  id: row.id,
  type: row.type,
  status: row.status,
  payload: JSON.parse(row.payload) as unknown,
  result: row.result === null ? null : (JSON.parse(row.result) as unknown),
  error: row.error,
  attempts: row.attempts,
  insertedAt: row.inserted_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
});

/** The text stored in `error` for a failed run. */
export const failureMessage = (error: unknown) => (error instanceof Error ? error.message : String(error)) || "Job failed";

/** A new queued job row (not yet inserted). */
export function queuedJobRow(type: string, payload: unknown, maxAttempts: number): JobRow {
  const timestamp = now();
  return {
    id: randomUUID(),
    type,
    status: "queued",
    payload: JSON.stringify(payload ?? null),
    result: null,
    error: null,
    attempts: 0,
    max_attempts: maxAttempts,
    run_after: timestamp,
    inserted_at: timestamp,
    started_at: null,
    finished_at: null,
    updated_at: timestamp,
  };
}

export async function findJob(db: Kysely<DB>, id: string): Promise<Job | null> {
  const row = await db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? toJob(row) : null;
}

/**
 * Runs the handler bound to the row's type and stores its result (`finished`). Throws what the
 * handler throws, or a `PermanentJobError` when no handler is bound: the caller records the failure.
 */
export async function runJob(db: Kysely<DB>, handlers: ReadonlyMap<string, JobHandler>, row: JobRow, context: JobContext): Promise<void> {
  const handler = handlers.get(row.type);
  if (!handler) throw new PermanentJobError(`No handler for jobs of type \`${row.type}\``);
  const result = await handler(JSON.parse(row.payload) as unknown, context);
  const timestamp = now();
  await db
    .updateTable("jobs")
    .set({ status: "finished", result: JSON.stringify(result ?? null), error: null, finished_at: timestamp, updated_at: timestamp })
    .where("id", "=", row.id)
    .execute();
}
