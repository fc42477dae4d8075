import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { HubConfig } from "../hub/config.js";
import { EmbeddedJobQueue } from "./embedded-queue.js";
import { PgBossJobQueue } from "./pgboss-queue.js";
import type { JobQueue } from "./port.js";
import { backgroundErrorLogger } from "../db/availability.js";

/**
 * Webhook deliveries (docs/api.md, webhooks). On the embedded store they run on a queue of their
 * own, so a slow or dead receiver never holds up a Hub import (the main queue runs one job at a time).
 */
export const WEBHOOK_DELIVERY_JOB = "webhook_delivery";
/** Runs per delivery: the first and 3 retries (upstream's RQ `Retry(max=3)`). */
export const WEBHOOK_DELIVERY_ATTEMPTS = 4;
/** Deliveries running at the same time (per replica on PostgreSQL). */
export const WEBHOOK_DELIVERY_CONCURRENCY = 4;

/** The job queue for the store in use: in-process on the embedded store, pg-boss on PostgreSQL (`databaseUrl`). */
export function createJobQueue(db: Kysely<DB>, hub: HubConfig, databaseUrl: string | null = null): JobQueue {
  if (databaseUrl) {
    return new PgBossJobQueue(db, databaseUrl, {
      retryDelayMs: hub.jobsRetryDelayMs,
      concurrencyByType: { [WEBHOOK_DELIVERY_JOB]: WEBHOOK_DELIVERY_CONCURRENCY },
      onError: backgroundErrorLogger("job queue"),
    });
  }
  return new EmbeddedJobQueue(db, {
    retryDelayMs: hub.jobsRetryDelayMs,
    exceptTypes: [WEBHOOK_DELIVERY_JOB],
    onError: (error) => console.error("job queue:", error),
  });
}

/**
 * The queue that delivers webhooks: on PostgreSQL the main pg-boss queue (every job type has its own
 * workers there); on the embedded store a second in-process queue over the same `jobs` table that
 * only claims deliveries, four at a time.
 */
export function createWebhookJobQueue(db: Kysely<DB>, hub: HubConfig, main: JobQueue, databaseUrl: string | null = null): JobQueue {
  if (databaseUrl) return main;
  return new EmbeddedJobQueue(db, {
    retryDelayMs: hub.jobsRetryDelayMs,
    onlyTypes: [WEBHOOK_DELIVERY_JOB],
    concurrency: WEBHOOK_DELIVERY_CONCURRENCY,
    maxAttempts: WEBHOOK_DELIVERY_ATTEMPTS,
    onError: (error) => console.error("webhook queue:", error),
  });
}
