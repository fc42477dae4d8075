import { expect, it } from "vitest";
import { openPgliteStore } from "../testing/pglite-store.js";
import { WebhookEvents } from "./events.js";
import type { Job, JobQueue } from "../jobs/port.js";

/** The HTTP tests run on SQLite; this one runs migration 0007 and the event dispatch on PostgreSQL (PGlite). */
it("dispatches only events a webhook subscribes to, on PostgreSQL", async () => {
  const store = await openPgliteStore();
  try {
    const webhook = {
      url: "http://x/",
      secret: "c2VjcmV0",
      description: null,
      inserted_at: "2026-01-01T00:00:00",
      updated_at: "2026-01-01T00:00:00",
    };
    await store.db
      .insertInto("webhooks")
      .values([
        { ...webhook, id: "00000000-0000-4000-8000-000000000001", events: JSON.stringify(["dataset.deleted"]), enabled: 1 },
        { ...webhook, id: "00000000-0000-4000-8000-000000000002", events: JSON.stringify(["dataset.deleted"]), enabled: 0 },
      ])
      .execute();
    const enqueued: unknown[] = [];
    const queue = {
      enqueue: async (_type: string, payload: unknown) => {
        enqueued.push(payload);
        return {} as Job;
      },
    } as unknown as JobQueue;
    const events = new WebhookEvents(store.db, queue);
    events.emit("dataset.deleted", { id: "d1" });
    events.emit("dataset.created", { datasetId: "d2" });
    events.emit("record.deleted", { ids: ["r1", "r2"] });
    await events.drain();
    expect(enqueued).toMatchObject([
      {
        type: "dataset.deleted",
        data: { id: "d1" },
        webhook_id: "00000000-0000-4000-8000-000000000001",
        id: expect.stringMatching(/^msg_/),
      },
    ]);
  } finally {
    await store.close();
  }
}, 60_000);
