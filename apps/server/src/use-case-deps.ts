import type { Kysely } from "kysely";
import type { DB } from "./db/schema.js";
import type { EventSink } from "./webhooks/events.js";

/**
 * What a use case that changes data and announces it needs: the store (SQLite or PostgreSQL, the same
 * Kysely queries) and the webhook event sink. `AppContext` satisfies it, so routes pass `ctx`.
 */
export interface ChangeDeps {
  db: Kysely<DB>;
  events: EventSink;
}
