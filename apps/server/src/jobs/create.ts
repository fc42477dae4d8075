import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { HubConfig } from "../hub/config.js";
import { EmbeddedJobQueue } from "./embedded-queue.js";
import { PgBossJobQueue } from "./pgboss-queue.js";
import type { JobQueue } from "./port.js";

/** The job queue for the store in use: in-process on the embedded store, pg-boss on PostgreSQL (`databaseUrl`). */
export function createJobQueue(db: Kysely<DB>, hub: HubConfig, databaseUrl: string | null = null): JobQueue {
  if (databaseUrl) return new PgBossJobQueue(db, databaseUrl, { retryDelayMs: hub.jobsRetryDelayMs, onError: (error) => console.error("job queue:", error) });
  return new EmbeddedJobQueue(db, { retryDelayMs: hub.jobsRetryDelayMs, onError: (error) => console.error("job queue:", error) });
}

