import type { FastifyRequest } from "fastify";
import type { Kysely } from "kysely";
import type { DB } from "./db/schema.js";
import type { Store } from "./db/database.js";
import type { ServerConfig } from "./config.js";
import type { TokenService } from "./auth/tokens.js";
import { authenticate, type UserRow } from "./auth/authenticate.js";

/** What every route module receives: the store, the token service and the configuration. */
export interface AppContext {
  store: Store;
  db: Kysely<DB>;
  tokens: TokenService;
  config: ServerConfig;
  /** Authenticates the caller or throws the contract's 401. */
  currentUser(request: FastifyRequest): Promise<UserRow>;
}

export function createContext(store: Store, tokens: TokenService, config: ServerConfig): AppContext {
  return { store, db: store.db, tokens, config, currentUser: (request) => authenticate(request, store.db, tokens) };
}
