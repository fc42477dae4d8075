import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { now } from "../../clock.js";
import { newWebhookSecret } from "../delivery.js";
import type { WebhookRow } from "./find-webhook.js";

/** Creates an enabled webhook with a new signing secret. */
export async function createWebhook(
  db: Kysely<DB>,
  input: { url: string; events: readonly string[]; description: string | null },
): Promise<WebhookRow> {
  const timestamp = now();
  const row: WebhookRow = {
    id: randomUUID(),
    url: input.url,
    secret: newWebhookSecret(),
    events: JSON.stringify(input.events),
    enabled: 1,
    description: input.description,
    inserted_at: timestamp,
    updated_at: timestamp,
  };
  await db.insertInto("webhooks").values(row).execute();
  return row;
}
