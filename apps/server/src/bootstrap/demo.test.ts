import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { seedDemo } from "./demo.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

describe("demo data", () => {
  it("creates a published dataset with every question type and 120 records with suggestions, once", async () => {
    const id = await seedDemo(server.app, server.ctx, { vectors: server.ctx.store.vectorSearch });
    expect(id).toBeTruthy();
    const get = async (path: string) => (await fetch(`${server.url}/api/v1${path}`, { headers: server.ownerHeaders })).json();
    expect(await get(`/datasets/${id}`)).toMatchObject({ name: "movie-reviews", status: "ready" });
    const questions = (await get(`/datasets/${id}/questions`)) as { items: { settings: { type: string } }[] };
    expect(questions.items.map((q) => q.settings.type).sort()).toEqual([
      "label_selection",
      "multi_label_selection",
      "ranking",
      "rating",
      "span",
      "text",
    ]);
    expect(await get(`/datasets/${id}/progress`)).toMatchObject({ total: 120, pending: 120 });
    const records = (await get(`/datasets/${id}/records?include=suggestions&limit=1`)) as { items: { suggestions: unknown[] }[] };
    expect(records.items[0]!.suggestions).toHaveLength(2);
    const first = (await get(`/datasets/${id}/records?limit=1`)) as { items: { id: string }[] };
    const similar = await fetch(`${server.url}/api/v1/me/datasets/${id}/records/search`, {
      method: "POST",
      headers: { ...server.ownerHeaders, "content-type": "application/json" },
      body: JSON.stringify({ query: { vector: { name: "review_embedding", record_id: first.items[0]!.id, max_results: 5 } } }),
    });
    if (server.ctx.store.vectorSearch) {
      expect(similar.status).toBe(200);
      expect(((await similar.json()) as { items: unknown[] }).items.length).toBeGreaterThan(0);
    } else {
      // Plain PostgreSQL without pgvector: the demo has no vector setting (it would block the next start).
      expect(((await get(`/datasets/${id}/vectors-settings`)) as { items: unknown[] }).items).toEqual([]);
    }
    expect(await seedDemo(server.app, server.ctx)).toBeNull();
  });
});
