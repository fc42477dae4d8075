import type { FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { DB } from "./db/schema.js";
import type { Store } from "./db/database.js";
import type { ServerConfig } from "./config.js";
import type { TokenService } from "./auth/tokens.js";
import { authenticate, type UserRow } from "./auth/authenticate.js";
import type { HubClient } from "./hub/client.js";
import { createHubClient } from "./hub/config.js";
import type { JobQueue } from "./jobs/port.js";
import { createJobQueue, createWebhookJobQueue } from "./jobs/create.js";
import { WebhookEvents, type EventSink } from "./webhooks/events.js";
import { backgroundErrorLogger } from "./db/availability.js";

/** What every route module receives: the store, the token service and the configuration. */
export interface AppContext {
  store: Store;
  db: Kysely<DB>;
  tokens: TokenService;
  config: ServerConfig;
  /** Hub dataset viewer client (only ever calls the configured Hub URL). */
  hub: HubClient;
  /** Background jobs (Hub import). */
  jobs: JobQueue;
  /** Delivers webhooks (a queue of its own on the embedded store; the main queue on PostgreSQL). */
  webhookJobs: JobQueue;
  /** Webhook events: route code calls `ctx.events.emit(type, ref)` after a change (webhooks/events.ts). */
  events: EventSink & { drain(): Promise<void>; read(): Promise<void> };
  /** Authenticates the caller or throws the contract's 401. */
  currentUser(request: FastifyRequest): Promise<UserRow>;
}

export function createContext(store: Store, tokens: TokenService, config: ServerConfig): AppContext {
  const jobs = createJobQueue(store.db, config.hub, store.databaseUrl);
  const webhookJobs = createWebhookJobQueue(store.db, config.hub, jobs, store.databaseUrl);
  return {
    store,
    db: store.db,
    tokens,
    config,
    hub: createHubClient(config.hub),
    jobs,
    webhookJobs,
    events: new WebhookEvents(store.db, webhookJobs, backgroundErrorLogger("webhook events")),
    currentUser: (request) => authenticate(request, store.db, tokens),
  };
}
