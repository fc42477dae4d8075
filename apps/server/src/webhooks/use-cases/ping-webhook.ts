import { eventTimestamp, newMessageId, sendMessage } from "../delivery.js";
import { SERVER_VERSION } from "../../status/server-version.js";
import type { WebhookRow } from "./find-webhook.js";

/**
 * Sends a ping to the webhook at once (not queued), like upstream, so the owner learns whether the
 * receiver is reachable; throws `DeliveryError` when it could not be reached.
 */
export async function pingWebhook(webhook: WebhookRow, timeoutMs: number): Promise<void> {
  const message = {
    id: newMessageId(),
    type: "ping",
    timestamp: eventTimestamp(new Date()),
    data: { agent: "tessera-server", version: SERVER_VERSION },
  };
  await sendMessage(webhook.url, webhook.secret, message, timeoutMs);
}
