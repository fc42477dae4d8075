import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { Webhook as StandardWebhook } from "standardwebhooks";
import type { DB } from "../db/schema.js";
import { PermanentJobError, type JobContext } from "../jobs/port.js";

/**
 * Sending webhook messages the Standard Webhooks way (https://www.standardwebhooks.com), as upstream
 * Argilla does: a JSON body `{type, version: 1, timestamp, data}` and the headers `webhook-id`,
 * `webhook-timestamp` (seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256>` of
 * `id.timestamp.body` with the webhook's secret). Redirects are never followed.
 */

export interface WebhookMessage {
  id: string;
  type: string;
  timestamp: string;
  data: unknown;
}

/** The payload of one delivery job: one message for one webhook (the message id stays the same across retries). */
export interface DeliveryPayload extends WebhookMessage {
  webhook_id: string;
}
export interface DeliveryResult {
  status: number | null;
  skipped?: string;
}

export const newMessageId = (): string => `msg_${randomBytes(16).toString("base64url")}`;
/** A signing secret: 24 random bytes, base64 (what the Standard Webhooks libraries decode). */
export const newWebhookSecret = (): string => randomBytes(24).toString("base64");

/** Python's `%Y-%m-%dT%H:%M:%S.%fZ` (microseconds), as upstream formats the event timestamp. */
export const eventTimestamp = (date: Date): string => date.toISOString().replace(/Z$/, "000Z");

export const messageBody = (message: WebhookMessage): string =>
  JSON.stringify({ type: message.type, version: 1, timestamp: message.timestamp, data: message.data });

export class DeliveryError extends Error {
  override name = "DeliveryError";
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** POSTs one signed message; returns the receiver's status. Network failures and timeouts throw a retryable DeliveryError. */
export async function sendMessage(
  url: string,
  secret: string,
  message: WebhookMessage,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<number> {
  const body = messageBody(message);
  const sentAt = new Date();
  const signature = new StandardWebhook(secret).sign(message.id, sentAt, body);
  const signals = [AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])];
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.any(signals),
      headers: {
        "content-type": "application/json",
        "user-agent": "Tessera-Webhooks/1",
        "webhook-id": message.id,
        "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body,
    });
  } catch (error) {
    const reason =
      error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
        ? `no answer within ${timeoutMs} ms`
        : ((error as { cause?: { code?: string; message?: string } }).cause?.code ??
          (error instanceof Error ? error.message : String(error)));
    throw new DeliveryError(`The webhook receiver at ${url} could not be reached: ${reason}`, true);
  }
  await res.body?.cancel().catch(() => undefined);
  return res.status;
}

/**
 * The delivery job: loads the webhook (a deleted or disabled webhook drops the message), sends the
 * message and classifies the answer. 2xx: delivered. Network errors, timeouts, 408, 429 and 5xx:
 * retried by the queue. Other statuses (4xx, 3xx redirects): failed at once, retrying cannot help.
 */
export async function deliverWebhook(
  db: Kysely<DB>,
  timeoutMs: number,
  payload: DeliveryPayload,
  context: Pick<JobContext, "signal">,
): Promise<DeliveryResult> {
  const webhook = await db.selectFrom("webhooks").selectAll().where("id", "=", payload.webhook_id).executeTakeFirst();
  if (!webhook) return { status: null, skipped: "the webhook was deleted" };
  if (!webhook.enabled) return { status: null, skipped: "the webhook is disabled" };
  const status = await sendMessage(webhook.url, webhook.secret, payload, timeoutMs, context.signal);
  if (status >= 200 && status < 300) return { status };
  const message = `The webhook receiver at ${webhook.url} answered ${status}`;
  if (status === 408 || status === 429 || status >= 500) throw new DeliveryError(message, true);
  throw new PermanentJobError(status >= 300 && status < 400 ? `${message} (redirects are not followed)` : message);
}
