import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { WebhookRow } from "./find-webhook.js";

/** Every webhook, oldest first. */
export async function listWebhooks(db: Kysely<DB>): Promise<WebhookRow[]> {
  return db.selectFrom("webhooks").selectAll().orderBy("inserted_at").orderBy("id").execute();
}
