import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { JobQueue } from "../jobs/port.js";
import { WEBHOOK_DELIVERY_ATTEMPTS, WEBHOOK_DELIVERY_JOB } from "../jobs/create.js";
import { eventTimestamp, newMessageId, type DeliveryPayload } from "./delivery.js";
import { datasetEventData, recordsEventData, responseEventData } from "./payloads.js";

/** The event catalogue of contract 3.16. */
export const WEBHOOK_EVENTS = [
  "dataset.created",
  "dataset.updated",
  "dataset.deleted",
  "dataset.published",
  "record.created",
  "record.updated",
  "record.deleted",
  "record.completed",
  "response.created",
  "response.updated",
  "response.deleted",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/** What route code passes for each event: ids only; the event data is built from the store. */
export interface EventRefs {
  "dataset.created": { datasetId: string };
  "dataset.updated": { datasetId: string };
  "dataset.published": { datasetId: string };
  "dataset.deleted": { id: string };
  "record.created": { recordIds: string[] };
  "record.updated": { recordIds: string[] };
  "record.completed": { recordIds: string[] };
  "record.deleted": { ids: string[] };
  "response.created": { responseId: string };
  "response.updated": { responseId: string };
  "response.deleted": { id: string };
}

export interface EventSink {
  /** Records that `type` happened. Never throws, never waits: delivery is asynchronous. */
  emit<T extends WebhookEventType>(type: T, ref: EventRefs[T]): void;
}

/**
 * Webhook events: route code calls `events.emit(type, ref)` after its change is stored. The rest
 * happens in the background: at once, find the enabled webhooks subscribed to `type` (nothing else
 * is done when there are none) and read the event data from the store (upstream's shapes,
 * payloads.ts); then, in emit order, enqueue one delivery job per (event, webhook) on the webhook
 * queue, which signs, sends and retries (delivery.ts). A failure here is logged, never surfaced to
 * the request.
 *
 * The data is read when the event is emitted, not when the enqueueing gets to it: enqueueing is
 * serial and can lag behind the requests (on PostgreSQL each job is a row plus a pg-boss job), and a
 * later change, e.g. the record deleted by the client's next request, would otherwise change the
 * event's data or drop it. The server answers a request only once the reads of the events emitted
 * so far are done (`read`, an onSend hook), so a client's next request cannot race them.
 */
interface Snapshot {
  webhooks: { id: string }[];
  data: unknown[];
}

export class WebhookEvents implements EventSink {
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private readonly reading = new Set<Promise<void>>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly queue: JobQueue,
    private readonly onError: (error: unknown) => void = (error) => console.error("webhook events:", error),
  ) {}

  emit<T extends WebhookEventType>(type: T, ref: EventRefs[T]): void {
    const at = new Date();
    this.pending++;
    const snapshot = this.snapshot(type, ref as EventRefs[WebhookEventType]);
    const read = snapshot.then(
      () => undefined,
      () => undefined,
    );
    this.reading.add(read);
    void read.then(() => this.reading.delete(read));
    this.chain = this.chain
      .then(async () => this.enqueue(type, await snapshot, at))
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        this.pending--;
      });
  }

  /** Resolves when the webhooks and data of every event emitted so far have been read (never rejects). */
  async read(): Promise<void> {
    await Promise.all([...this.reading]);
  }

  /** Resolves when every event emitted so far has been enqueued (tests, shutdown). */
  async drain(): Promise<void> {
    while (this.pending > 0) await this.chain;
  }

  private async snapshot(type: WebhookEventType, ref: EventRefs[WebhookEventType]): Promise<Snapshot> {
    const webhooks = (
      await this.db.selectFrom("webhooks").select(["id", "events"]).where("enabled", "=", 1).orderBy("inserted_at").orderBy("id").execute()
    ).filter((w) => (JSON.parse(w.events) as string[]).includes(type));
    if (webhooks.length === 0) return { webhooks, data: [] };
    return { webhooks, data: await this.eventData(type, ref) };
  }

  private async enqueue(type: WebhookEventType, { webhooks, data: items }: Snapshot, at: Date): Promise<void> {
    const timestamp = eventTimestamp(at);
    for (const data of items) {
      for (const webhook of webhooks) {
        const payload: DeliveryPayload = { webhook_id: webhook.id, id: newMessageId(), type, timestamp, data };
        await this.queue.enqueue(WEBHOOK_DELIVERY_JOB, payload, { maxAttempts: WEBHOOK_DELIVERY_ATTEMPTS });
      }
    }
  }

  /** One data object per event; resources gone by now are left out (their deletion sends its own event). */
  private async eventData(type: WebhookEventType, ref: EventRefs[WebhookEventType]): Promise<unknown[]> {
    if ("id" in ref) return [{ id: ref.id }];
    if ("ids" in ref) return ref.ids.map((id) => ({ id }));
    if ("datasetId" in ref) return [await datasetEventData(this.db, ref.datasetId)].filter((d) => d !== null);
    if ("recordIds" in ref) return recordsEventData(this.db, ref.recordIds);
    if ("responseId" in ref) return [await responseEventData(this.db, ref.responseId)].filter((d) => d !== null);
    throw new Error(`No event data for ${type}`);
  }
}
