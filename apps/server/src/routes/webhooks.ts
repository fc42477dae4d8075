import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { requireOwner } from "../auth/policies.js";
import { HttpError, parse } from "../http/errors.js";
import { uuidPath } from "../records/access.js";
import { rejectNullKeys } from "../settings/common.js";
import { WEBHOOK_DELIVERY_JOB } from "../jobs/create.js";
import { WEBHOOK_EVENTS } from "../webhooks/events.js";
import { deliverWebhook, DeliveryError, type DeliveryPayload } from "../webhooks/delivery.js";
import { findWebhook, type WebhookRow } from "../webhooks/use-cases/find-webhook.js";
import { listWebhooks } from "../webhooks/use-cases/list-webhooks.js";
import { createWebhook } from "../webhooks/use-cases/create-webhook.js";
import { updateWebhook } from "../webhooks/use-cases/update-webhook.js";
import { deleteWebhook } from "../webhooks/use-cases/delete-webhook.js";
import { pingWebhook } from "../webhooks/use-cases/ping-webhook.js";

/** pydantic's HttpUrl limit. */
const MAX_URL_LENGTH = 2083;

/**
 * A webhook URL: absolute http(s) with a host (other schemes are refused: file:, ftp:, data: ...).
 * Stored normalized (`new URL(...).href`, like pydantic's HttpUrl). Owners configure these URLs and
 * the server calls them: see docs/api.md on SSRF.
 */
const webhookUrl = z
  .string()
  .max(MAX_URL_LENGTH)
  .transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "Input should be a valid URL" });
      return z.NEVER;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      ctx.addIssue({ code: "custom", message: "URL scheme should be 'http' or 'https'" });
      return z.NEVER;
    }
    if (!url.hostname) {
      ctx.addIssue({ code: "custom", message: "Input should be a valid URL, empty host" });
      return z.NEVER;
    }
    return url.href;
  });
const webhookEvents = z
  .array(z.enum(WEBHOOK_EVENTS))
  .min(1)
  .refine((events) => new Set(events).size === events.length, { message: "Value error, Events must be unique" });
const description = z.string().min(1).max(1000).nullable();

const WebhookCreate = z.object({ url: webhookUrl, events: webhookEvents, description: description.optional().default(null) });
const WebhookUpdate = z.object({
  url: webhookUrl.optional(),
  events: webhookEvents.optional(),
  enabled: z.boolean().optional(),
  description: description.optional(),
});

export const webhookOut = (w: WebhookRow) => ({
  id: w.id,
  url: w.url,
  secret: w.secret,
  events: JSON.parse(w.events) as string[],
  enabled: Boolean(w.enabled),
  description: w.description,
  inserted_at: w.inserted_at,
  updated_at: w.updated_at,
});

/**
 * Webhooks (contract 3.16, owner only): CRUD and ping, plus the webhook delivery queue's lifecycle
 * (handler bound, started when the app is ready; answers wait until the data of the events they
 * emitted is read; on close, emitted events are enqueued before the queue stops). Path and body are
 * validated first, then existence (404), then the role (403), as upstream.
 */
export function webhooksRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.webhookJobs.register<DeliveryPayload, unknown>(WEBHOOK_DELIVERY_JOB, (payload, context) =>
    deliverWebhook(ctx.db, ctx.config.webhooks.timeoutMs, payload, context),
  );
  app.addHook("onReady", async () => {
    await ctx.webhookJobs.start();
  });
  app.addHook("onClose", async () => {
    await ctx.events.drain();
    await ctx.webhookJobs.stop();
  });
  // An event's data is read from the store when it is emitted: answer once that is done, so the client's
  // next request (e.g. deleting the record just updated) cannot change or drop it (webhooks/events.ts).
  app.addHook("onSend", async () => {
    await ctx.events.read();
  });

  app.get("/api/v1/webhooks", async (request) => {
    requireOwner(await ctx.currentUser(request));
    return { items: (await listWebhooks(ctx.db)).map(webhookOut) };
  });

  app.post("/api/v1/webhooks", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const body = parse(WebhookCreate, request.body);
    requireOwner(user);
    return reply.status(201).send(webhookOut(await createWebhook(ctx.db, body)));
  });

  app.patch("/api/v1/webhooks/:webhook_id", async (request) => {
    const user = await ctx.currentUser(request);
    const id = uuidPath(request, "webhook_id");
    rejectNullKeys(request.body, ["url", "events", "enabled"]);
    const body = parse(WebhookUpdate, request.body ?? {});
    const webhook = await findWebhook(ctx.db, id);
    requireOwner(user);
    return webhookOut(await updateWebhook(ctx.db, webhook, body));
  });

  app.delete("/api/v1/webhooks/:webhook_id", async (request) => {
    const user = await ctx.currentUser(request);
    const webhook = await findWebhook(ctx.db, uuidPath(request, "webhook_id"));
    requireOwner(user);
    await deleteWebhook(ctx.db, webhook);
    return webhookOut(webhook);
  });

  // Sent at once (not queued), like upstream, so the owner learns whether the receiver is reachable:
  // 204 when it answered (whatever its status), 502 with the reason when it could not be reached.
  app.post("/api/v1/webhooks/:webhook_id/ping", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const webhook = await findWebhook(ctx.db, uuidPath(request, "webhook_id"));
    requireOwner(user);
    try {
      await pingWebhook(webhook, ctx.config.webhooks.timeoutMs);
    } catch (error) {
      if (error instanceof DeliveryError) throw new HttpError(502, { detail: error.message });
      throw error;
    }
    return reply.status(204).send();
  });
}
