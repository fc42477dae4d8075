import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { now } from "../../clock.js";
import type { WebhookRow } from "./find-webhook.js";

export interface WebhookChanges {
  url?: string;
  events?: readonly string[];
  enabled?: boolean;
  description?: string | null;
}

/** Changes a webhook's URL, events, enabled flag or description. Returns the updated row. */
export async function updateWebhook(db: Kysely<DB>, webhook: WebhookRow, input: WebhookChanges): Promise<WebhookRow> {
  const changes: Partial<WebhookRow> = { updated_at: now() };
  if (input.url !== undefined) changes.url = input.url;
  if (input.events !== undefined) changes.events = JSON.stringify(input.events);
  if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
  if (input.description !== undefined) changes.description = input.description;
  await db.updateTable("webhooks").set(changes).where("id", "=", webhook.id).execute();
  return { ...webhook, ...changes };
}
