import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { HubConfig } from "../hub/config.js";
import { EmbeddedJobQueue } from "./embedded-queue.js";
import type { JobQueue } from "./port.js";

/** The job queue for the store in use (embedded today; a pg-boss adapter for PostgreSQL later). */
export function createJobQueue(db: Kysely<DB>, hub: HubConfig): JobQueue {
  return new EmbeddedJobQueue(db, { retryDelayMs: hub.jobsRetryDelayMs, onError: (error) => console.error("job queue:", error) });
}

