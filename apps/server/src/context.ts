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
import { createJobQueue } from "./jobs/create.js";

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
  /** Authenticates the caller or throws the contract's 401. */
  currentUser(request: FastifyRequest): Promise<UserRow>;
}

export function createContext(store: Store, tokens: TokenService, config: ServerConfig): AppContext {
  return { store, db: store.db, tokens, config, hub: createHubClient(config.hub), jobs: createJobQueue(store.db, config.hub, store.databaseUrl), currentUser: (request) => authenticate(request, store.db, tokens) };
}
