import type { Kysely, Selectable } from "kysely";
import type { DB, WebhooksTable } from "../../db/schema.js";
import { notFound } from "../../http/errors.js";

export type WebhookRow = Selectable<WebhooksTable>;

/** Loads a webhook (404 ``Webhook with id `X` not found``). */
export async function findWebhook(db: Kysely<DB>, id: string): Promise<WebhookRow> {
  const row = await db.selectFrom("webhooks").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw notFound(`Webhook with id \`${id}\` not found`);
  return row;
}
