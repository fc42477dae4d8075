import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { WebhookRow } from "./find-webhook.js";

/** Deletes a webhook. */
export async function deleteWebhook(db: Kysely<DB>, webhook: WebhookRow): Promise<void> {
  await db.deleteFrom("webhooks").where("id", "=", webhook.id).execute();
}
