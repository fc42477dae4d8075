import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { FORBIDDEN, Fixtures, UNAUTHORIZED, type Actor, type Json } from "../testing/fixtures.js";
import { startReceiver, type ReceivedRequest, type Receiver } from "../testing/webhook-receiver.js";
import { WEBHOOK_EVENTS } from "../webhooks/events.js";

let server: TestServer;
let f: Fixtures;
let receiver: Receiver;
let admin: Actor;
let annotator: Actor;

interface WebhookJson {
  id: string;
  url: string;
  secret: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  inserted_at: string;
  updated_at: string;
}

beforeAll(async () => {
  server = await startTestServer({ TESSERA_JOBS_RETRY_DELAY_MS: "20", TESSERA_WEBHOOKS_TIMEOUT_MS: "1000" });
  f = new Fixtures(server);
  receiver = await startReceiver();
  admin = await f.user("admin");
  annotator = await f.user("annotator");
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

/** Each test starts with no webhooks and an empty receiver. */
beforeEach(async () => {
  await server.ctx.events.drain();
  for (const w of (await f.ok<{ items: WebhookJson[] }>("GET", "/webhooks", undefined, 200)).items)
    await f.ok("DELETE", `/webhooks/${w.id}`, undefined, 200);
  receiver.requests.length = 0;
  receiver.respond = () => 200;
});

const createWebhook = (body: Json) => f.ok<WebhookJson>("POST", "/webhooks", { url: receiver.url, ...body });
const ofType = (type: string) => (requests: ReceivedRequest[]) => requests.filter((r) => r.json.type === type);
/** The latest webhook delivery job once it is finished or failed. */
async function settledDelivery(timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await server.ctx.db
      .selectFrom("jobs")
      .select(["status", "attempts", "result", "error"])
      .where("type", "=", "webhook_delivery")
      .orderBy("inserted_at", "desc")
      .limit(1)
      .executeTakeFirstOrThrow();
    if (job.status === "finished" || job.status === "failed" || Date.now() > deadline) return job;
    await new Promise((r) => setTimeout(r, 25));
  }
}
const verify = (secret: string, request: ReceivedRequest) =>
  new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>);

describe("webhooks CRUD (contract 3.16)", () => {
  it("creates a webhook with a generated secret, enabled, and lists, updates and deletes it", async () => {
    const created = await f.request<WebhookJson>("POST", "/webhooks", {
      body: { url: "https://example.com/hook", events: ["dataset.created", "response.created"], id: "ignored" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: "https://example.com/hook",
      events: ["dataset.created", "response.created"],
      enabled: true,
      description: null,
    });
    expect(created.body.secret.length).toBeGreaterThanOrEqual(32);
    const other = await createWebhook({ events: ["record.created"], description: "Second" });
    expect(other.secret).not.toBe(created.body.secret);
    expect((await f.ok<{ items: WebhookJson[] }>("GET", "/webhooks", undefined, 200)).items.map((w) => w.id)).toEqual([
      created.body.id,
      other.id,
    ]);

    const patched = await f.ok<WebhookJson>(
      "PATCH",
      `/webhooks/${created.body.id}`,
      { enabled: false, description: "Now described", url: "http://example.org" },
      200,
    );
    expect(patched).toMatchObject({
      id: created.body.id,
      enabled: false,
      description: "Now described",
      url: "http://example.org/",
      events: ["dataset.created", "response.created"],
      secret: created.body.secret,
    });
    expect(
      await f.ok<WebhookJson>("PATCH", `/webhooks/${created.body.id}`, { description: null, events: ["record.deleted"] }, 200),
    ).toMatchObject({ description: null, events: ["record.deleted"], enabled: false });

    expect((await f.request("DELETE", `/webhooks/${created.body.id}`)).body).toMatchObject({
      id: created.body.id,
      events: ["record.deleted"],
    });
    expect((await f.ok<{ items: WebhookJson[] }>("GET", "/webhooks", undefined, 200)).items.map((w) => w.id)).toEqual([other.id]);
    expect(await f.request("DELETE", `/webhooks/${created.body.id}`)).toEqual({
      status: 404,
      body: { detail: `Webhook with id \`${created.body.id}\` not found` },
    });
  });

  it.each([
    ["a non-http scheme", { url: "ftp://example.com/x", events: ["dataset.created"] }, "URL scheme should be 'http' or 'https'"],
    ["a file URL", { url: "file:///etc/passwd", events: ["dataset.created"] }, "URL scheme should be 'http' or 'https'"],
    ["a relative URL", { url: "/hooks", events: ["dataset.created"] }, "Input should be a valid URL"],
    ["a missing url", { events: ["dataset.created"] }, ""],
    ["no events", { url: "https://example.com", events: [] }, ""],
    ["duplicate events", { url: "https://example.com", events: ["dataset.created", "dataset.created"] }, "Events must be unique"],
    ["an unknown event", { url: "https://example.com", events: ["dataset.exploded"] }, ""],
    ["an empty description", { url: "https://example.com", events: ["dataset.created"], description: "" }, ""],
    ["a description over 1000 chars", { url: "https://example.com", events: ["dataset.created"], description: "x".repeat(1001) }, ""],
  ])("refuses %s with the legacy 422", async (_name, body, message) => {
    const res = await f.request<Json>("POST", "/webhooks", { body });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ detail: { code: "argilla.api.errors::ValidationError" } });
    expect(JSON.stringify(res.body)).toContain(message);
    expect((await f.ok<{ items: WebhookJson[] }>("GET", "/webhooks", undefined, 200)).items).toEqual([]);
  });

  it("accepts every event of the catalogue and a 1000-char description", async () => {
    expect(await createWebhook({ events: [...WEBHOOK_EVENTS], description: "d".repeat(1000) })).toMatchObject({
      events: [...WEBHOOK_EVENTS],
    });
  });

  it("rejects null for the non-nullable keys on PATCH, bad values and unknown ids", async () => {
    const w = await createWebhook({ events: ["dataset.created"] });
    const res = await f.request("PATCH", `/webhooks/${w.id}`, { body: { url: null, events: null, enabled: null } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain("The following keys must have non-null values: url, events, enabled");
    expect((await f.request("PATCH", `/webhooks/${w.id}`, { body: { url: "javascript:alert(1)" } })).status).toBe(422);
    expect((await f.request("PATCH", `/webhooks/${w.id}`, { body: { events: ["record.created", "record.created"] } })).status).toBe(422);
    expect((await f.request("PATCH", `/webhooks/${w.id}`, { body: { enabled: "yes" } })).status).toBe(422);
    expect((await f.request("PATCH", "/webhooks/not-a-uuid", { body: {} })).status).toBe(422);
    expect((await f.request("PATCH", "/webhooks/00000000-0000-4000-8000-000000000000", { body: {} })).status).toBe(404);
    expect((await f.request("POST", "/webhooks/00000000-0000-4000-8000-000000000000/ping")).status).toBe(404);
    expect((await f.request("GET", "/webhooks")).body).toMatchObject({
      items: [{ id: w.id, url: receiver.url, events: ["dataset.created"], enabled: true }],
    });
  });

  it("is for owners only (403 for admins and annotators, 401 without credentials)", async () => {
    const w = await createWebhook({ events: ["dataset.created"] });
    for (const actor of [admin, annotator]) {
      expect(await f.request("GET", "/webhooks", { headers: actor.headers })).toEqual({ status: 403, body: FORBIDDEN });
      expect(
        await f.request("POST", "/webhooks", { headers: actor.headers, body: { url: "https://example.com", events: ["dataset.created"] } }),
      ).toEqual({ status: 403, body: FORBIDDEN });
      expect(await f.request("PATCH", `/webhooks/${w.id}`, { headers: actor.headers, body: { enabled: false } })).toEqual({
        status: 403,
        body: FORBIDDEN,
      });
      expect(await f.request("DELETE", `/webhooks/${w.id}`, { headers: actor.headers })).toEqual({ status: 403, body: FORBIDDEN });
      expect(await f.request("POST", `/webhooks/${w.id}/ping`, { headers: actor.headers })).toEqual({ status: 403, body: FORBIDDEN });
    }
    expect(await f.request("GET", "/webhooks", { headers: null })).toEqual({ status: 401, body: UNAUTHORIZED });
    expect(receiver.requests).toEqual([]);
    expect((await f.ok<{ items: WebhookJson[] }>("GET", "/webhooks", undefined, 200)).items[0]).toMatchObject({ enabled: true });
  });
});

describe("ping", () => {
  it("sends a signed ping at once and answers 204", async () => {
    const w = await createWebhook({ events: ["dataset.created"] });
    const res = await f.request("POST", `/webhooks/${w.id}/ping`);
    expect(res.status).toBe(204);
    expect(receiver.requests).toHaveLength(1);
    const ping = receiver.requests[0]!;
    expect(ping.method).toBe("POST");
    expect(ping.headers["content-type"]).toBe("application/json");
    expect(ping.json).toMatchObject({ type: "ping", version: 1, data: { agent: "tessera-server" } });
    expect(ping.json.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(verify(w.secret, ping)).toMatchObject({ type: "ping" });
    expect(() => verify("c2VjcmV0LW9mLXNvbWVvbmUtZWxzZQ==", ping)).toThrow();
  });

  it("answers 502 with the reason when the receiver cannot be reached", async () => {
    const closed = await startReceiver();
    await closed.close();
    const w = await f.ok<WebhookJson>("POST", "/webhooks", { url: closed.url, events: ["dataset.created"] });
    const res = await f.request<{ detail: string }>("POST", `/webhooks/${w.id}/ping`);
    expect(res.status).toBe(502);
    expect(res.body.detail).toContain(`The webhook receiver at ${closed.url} could not be reached`);
  });
});

describe("event delivery", () => {
  it("delivers dataset events signed, in upstream's payload shape, only to subscribed enabled webhooks", async () => {
    const w = await createWebhook({ events: ["dataset.created", "dataset.updated", "dataset.published", "dataset.deleted"] });
    const disabled = await createWebhook({ events: ["dataset.created"] });
    await f.ok("PATCH", `/webhooks/${disabled.id}`, { enabled: false }, 200);
    const unsubscribed = await f.ok<WebhookJson>("POST", "/webhooks", { url: `${receiver.url}/other`, events: ["record.created"] });

    const d = await f.readyDataset({ draft: true });
    await f.ok("PATCH", `/datasets/${d.datasetId}`, { guidelines: "Be kind" }, 200);
    await f.publish(d.datasetId);
    await f.ok("DELETE", `/datasets/${d.datasetId}`, undefined, 200);

    const requests = await receiver.waitFor((r) => r.length >= 4);
    await server.ctx.events.drain();
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests.map((r) => r.json.type).sort()).toEqual([
      "dataset.created",
      "dataset.deleted",
      "dataset.published",
      "dataset.updated",
    ]);
    expect(receiver.requests.every((r) => r.path === "/hooks")).toBe(true);
    expect(unsubscribed.id).toBeTruthy();

    for (const request of requests) {
      expect(verify(w.secret, request)).toMatchObject({ type: request.json.type });
      expect(request.headers["webhook-id"]).toMatch(/^msg_/);
      expect(Number(request.headers["webhook-timestamp"])).toBeGreaterThan(Date.now() / 1000 - 60);
      expect(request.json.version).toBe(1);
    }
    const published = ofType("dataset.published")(requests)[0]!.json.data;
    expect(published).toMatchObject({
      id: d.datasetId,
      status: "ready",
      guidelines: "Be kind",
      allow_extra_metadata: true,
      distribution: { strategy: "overlap", min_submitted: 1 },
      workspace: { id: d.workspaceId },
      fields: [{ name: d.fieldName, required: true, settings: { type: "text" } }],
      questions: [{ name: d.questionName }],
      metadata_properties: [],
      vectors_settings: [],
    });
    expect(Object.keys(published).sort()).toEqual([
      "allow_extra_metadata",
      "distribution",
      "fields",
      "guidelines",
      "id",
      "inserted_at",
      "last_activity_at",
      "metadata_properties",
      "name",
      "questions",
      "status",
      "updated_at",
      "vectors_settings",
      "workspace",
    ]);
    expect(ofType("dataset.created")(requests)[0]!.json.data).toMatchObject({ id: d.datasetId, status: "draft" });
    expect(ofType("dataset.deleted")(requests)[0]!.json.data).toEqual({ id: d.datasetId });
  });

  it("delivers record and response events, record.completed when a record becomes completed", async () => {
    const d = await f.readyDataset();
    const w = await createWebhook({
      events: [
        "record.created",
        "record.updated",
        "record.deleted",
        "record.completed",
        "response.created",
        "response.updated",
        "response.deleted",
      ],
    });
    const [a, b] = (await f.records(d.datasetId, [
      { external_id: "a", fields: { [d.fieldName]: "one" } },
      { external_id: "b", fields: { [d.fieldName]: "two" } },
    ])) as [string, string];
    await receiver.waitFor((r) => ofType("record.created")(r).length === 2);
    const createdEvents = ofType("record.created")(receiver.requests);
    // one delivery job per event; on PostgreSQL the queue may send two jobs at once, so they may arrive in either order
    expect(createdEvents.map((r) => r.json.data.id).sort()).toEqual([a, b].sort());
    expect(createdEvents.find((r) => r.json.data.id === a)!.json.data).toMatchObject({
      id: a,
      status: "pending",
      external_id: "a",
      fields: { [d.fieldName]: "one" },
      metadata: null,
      dataset: { id: d.datasetId, workspace: { id: d.workspaceId } },
    });

    const response = await f.ok<{ id: string }>("POST", `/records/${a}/responses`, {
      status: "submitted",
      values: { [d.questionName]: { value: "yes" } },
    });
    await receiver.waitFor((r) => ofType("record.completed")(r).length === 1 && ofType("response.created")(r).length === 1);
    const responseEvent = ofType("response.created")(receiver.requests)[0]!.json.data;
    expect(responseEvent).toMatchObject({
      id: response.id,
      status: "submitted",
      values: { [d.questionName]: { value: "yes" } },
      record: { id: a, status: "completed", dataset: { id: d.datasetId } },
      user: { username: "owner", role: "owner" },
    });
    expect(responseEvent.user).not.toHaveProperty("api_key");
    expect(ofType("record.completed")(receiver.requests)[0]!.json.data).toMatchObject({ id: a, status: "completed" });

    // Updating an already completed record's response: response.updated and record.updated, no second record.completed.
    await f.ok("PUT", `/responses/${response.id}`, { status: "submitted", values: { [d.questionName]: { value: "no" } } }, 200);
    await f.ok("DELETE", `/responses/${response.id}`, undefined, 200);
    await f.ok("PATCH", `/records/${b}`, { metadata: null }, 200);
    await f.request("DELETE", `/datasets/${d.datasetId}/records?ids=${b}`);
    await f.ok("DELETE", `/records/${a}`, undefined, 200);
    await receiver.waitFor(
      (r) =>
        ofType("record.deleted")(r).length === 2 &&
        ofType("response.deleted")(r).length === 1 &&
        ofType("response.updated")(r).length === 1,
    );
    await server.ctx.events.drain();
    await new Promise((r) => setTimeout(r, 200));
    expect(ofType("record.completed")(receiver.requests)).toHaveLength(1);
    expect(ofType("response.deleted")(receiver.requests)[0]!.json.data).toEqual({ id: response.id });
    expect(
      ofType("record.deleted")(receiver.requests)
        .map((r) => r.json.data)
        .sort((x, y) => String(x.id).localeCompare(String(y.id))),
    ).toEqual([{ id: a }, { id: b }].sort((x, y) => x.id.localeCompare(y.id)));
    expect(ofType("record.updated")(receiver.requests).map((r) => r.json.data.id)).toEqual(expect.arrayContaining([a, b]));
    for (const request of receiver.requests) expect(verify(w.secret, request)).toBeTruthy();
  });

  it("never slows the request: a receiver that hangs does not delay the API answer", async () => {
    receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve(200), 3000));
    await createWebhook({ events: ["dataset.created"] });
    const ws = await f.workspace();
    const started = Date.now();
    await f.dataset(ws.id);
    expect(Date.now() - started).toBeLessThan(1500);
    await receiver.waitFor((r) => r.length === 1);
  });

  it("retries a receiver that fails (5xx, timeouts) with the same message id, and gives up on a 4xx at once", async () => {
    receiver.respond = (_request, index) => (index < 2 ? 503 : 200);
    await createWebhook({ events: ["dataset.created"] });
    const ws = await f.workspace();
    await f.dataset(ws.id);
    const requests = await receiver.waitFor((r) => r.length === 3);
    expect(new Set(requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
    // The receiver records the third request before it answers: the job is finished a moment later.
    expect(await settledDelivery()).toMatchObject({ status: "finished", attempts: 3 });

    receiver.requests.length = 0;
    receiver.respond = () => 410;
    await f.dataset(ws.id);
    await receiver.waitFor((r) => r.length === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests).toHaveLength(1);
    const failed = await settledDelivery();
    expect(failed).toMatchObject({ status: "failed", attempts: 1, error: `The webhook receiver at ${receiver.url} answered 410` });

    // A timeout is retried, 4 runs in all.
    receiver.requests.length = 0;
    receiver.respond = () => new Promise((resolve) => setTimeout(() => resolve(200), 1500));
    await f.dataset(ws.id);
    await receiver.waitFor((r) => r.length === 4, 15_000);
  }, 30_000);

  it("drops queued messages of a webhook deleted or disabled before delivery", async () => {
    const w = await createWebhook({ events: ["dataset.created"] });
    await server.ctx.webhookJobs.stop();
    try {
      const ws = await f.workspace();
      await f.dataset(ws.id);
      await server.ctx.events.drain();
      await f.ok("PATCH", `/webhooks/${w.id}`, { enabled: false }, 200);
    } finally {
      await server.ctx.webhookJobs.start();
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.requests).toEqual([]);
    const job = await settledDelivery();
    expect(job).toMatchObject({ status: "finished", result: JSON.stringify({ status: null, skipped: "the webhook is disabled" }) });
  });
});
