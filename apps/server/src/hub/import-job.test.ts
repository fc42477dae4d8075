import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { FAKE_HUB_TOKEN, startFakeHub, type FakeHub } from "@tessera/fake-hub";
import { serverForFile } from "../testing/fixtures.js";
import type { EventRefs, WebhookEventType } from "../webhooks/events.js";

let hub: FakeHub;
beforeAll(async () => {
  hub = await startFakeHub();
});
afterAll(async () => {
  await hub?.close();
});
// Registered after the Hub's hooks: starts once the Hub is up, stops before it closes.
const fx = serverForFile(() => ({
  TESSERA_HUB_DATASETS_SERVER_URL: hub.url,
  HF_TOKEN: FAKE_HUB_TOKEN,
  TESSERA_HUB_RETRY_DELAY_MS: "5",
  TESSERA_JOBS_RETRY_DELAY_MS: "5",
}));

async function runImport(datasetId: string): Promise<void> {
  const body = {
    name: "tessera/chat-demo",
    subset: "default",
    split: "train",
    mapping: { fields: [{ source: "prompt", target: "prompt" }], metadata: [], suggestions: [] },
  };
  const res = await fx.request<{ id: string }>("POST", `/datasets/${datasetId}/import`, { body });
  expect(res.status).toBe(202);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const job = await fx.request<{ status: string; error: string | null }>("GET", `/jobs/${res.body.id}`);
    if (job.body.status === "finished") return;
    if (job.body.status === "failed" || Date.now() > deadline) throw new Error(`import ${job.body.status}: ${job.body.error}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("Hub import job: webhook events", () => {
  it("emits record.created for new records and record.updated when a re-import upserts them, like the bulk routes", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    await fx.field(ds.id, { name: "prompt", title: "Prompt", required: true, settings: { type: "text" } });
    await fx.question(ds.id, { name: "comment", title: "Comment", required: true, settings: { type: "text" } });
    await fx.publish(ds.id);
    const emitted: Array<{ type: WebhookEventType; ids: string[] }> = [];
    const spy = vi.spyOn(fx.server.ctx.events, "emit").mockImplementation(<T extends WebhookEventType>(type: T, ref: EventRefs[T]) => {
      emitted.push({ type, ids: "recordIds" in ref ? ref.recordIds : [] });
    });
    try {
      await runImport(ds.id);
      const stored = (await fx.server.ctx.db.selectFrom("records").select("id").where("dataset_id", "=", ds.id).execute())
        .map((r) => r.id)
        .sort();
      expect(stored.length).toBeGreaterThan(0);
      const created = emitted
        .filter((e) => e.type === "record.created")
        .flatMap((e) => e.ids)
        .sort();
      expect(created).toEqual(stored);
      expect(emitted.some((e) => e.type === "record.updated")).toBe(false);

      emitted.length = 0;
      await runImport(ds.id);
      expect(emitted.filter((e) => e.type === "record.created")).toEqual([]);
      expect(
        emitted
          .filter((e) => e.type === "record.updated")
          .flatMap((e) => e.ids)
          .sort(),
      ).toEqual(stored);
    } finally {
      spy.mockRestore();
    }
  });
});
