import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../testing/test-server.js";
import { FORBIDDEN, type Json } from "../testing/fixtures.js";
import type { RichDataset } from "../records/testing.js";
import { datasetWithRecords } from "../testing/dataset-with-records.js";

let server: TestServer;
let d: RichDataset;
let recordId: string;
beforeAll(async () => {
  let ids: string[];
  ({ server, d, ids } = await datasetWithRecords(1, { items: [{ fields: { text: "Alan Turing at Bletchley" } }] }));
  recordId = ids[0]!;
}, 60_000);
afterAll(async () => {
  await server.stop();
});

type SuggestionJson = Json & { id: string; question_id: string; value: unknown; score: unknown; agent: string | null; type: string | null };
const put = (body: unknown, headers = d.f.owner) =>
  d.f.request<SuggestionJson>("PUT", `/records/${recordId}/suggestions`, { body, headers });

describe("record suggestions", () => {
  it("PUT creates (201) then updates (200) per question; GET lists them", async () => {
    const created = await put({ question_id: d.questions.label.id, value: "positive", score: 0.5, agent: "model-1", type: "model" });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(["agent", "id", "inserted_at", "question_id", "score", "type", "updated_at", "value"]);
    const updated = await put({ question_id: d.questions.label.id, value: "negative", score: 0.7, agent: "model-2" });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: created.body.id, value: "negative", score: 0.7, agent: "model-2", type: null });
    const span = await put(
      { question_id: d.questions.span.id, value: [{ label: "PER", start: 0, end: 11 }], score: [0.8] },
      d.admin.headers,
    );
    expect(span.status).toBe(201);
    const list = await d.f.request<{ items: SuggestionJson[] }>("GET", `/records/${recordId}/suggestions`, {
      headers: d.annotator.headers,
    });
    expect(list.status).toBe(200);
    expect(list.body.items.map((s) => s.question_id)).toEqual([d.questions.label.id, d.questions.span.id]);
  });

  it("validates the question, the value, the score and the agent", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    expect(await put({ question_id: unknown, value: "x" })).toEqual({
      status: 422,
      body: { detail: `Question with id \`${unknown}\` not found` },
    });
    const bad = await put({ question_id: d.questions.rating.id, value: 9 });
    expect(bad.status).toBe(422);
    expect((bad.body as unknown as { detail: string }).detail).toContain("9 is not a valid rating for rating question.");
    expect((await put({ question_id: d.questions.label.id, value: "positive", score: 1.5 })).status).toBe(422);
    expect((await put({ question_id: d.questions.label.id, value: "positive", agent: "!!!" })).status).toBe(422);
    expect((await put({ question_id: d.questions.label.id })).status).toBe(422);
    expect((await put({ question_id: "not-a-uuid", value: "x" })).status).toBe(422);
    expect((await d.f.request("PUT", `/records/${recordId}/suggestions`, { body: "{" })).status).toBe(422);
  });

  it("applies the permission rules", async () => {
    const body = { question_id: d.questions.label.id, value: "positive" };
    expect(await put(body, d.annotator.headers)).toEqual({ status: 403, body: FORBIDDEN });
    expect((await put(body, d.outsideAdmin.headers)).status).toBe(403);
    expect((await d.f.request("GET", `/records/${recordId}/suggestions`, { headers: d.outsideAdmin.headers })).status).toBe(403);
    expect((await d.f.request("GET", `/records/${recordId}/suggestions`, { headers: null })).status).toBe(401);
    expect((await d.f.request("GET", "/records/00000000-0000-4000-8000-000000000000/suggestions")).status).toBe(404);
  });

  it("deletes many (1..100 ids, 204) and one (200)", async () => {
    const items = (await d.f.request<{ items: SuggestionJson[] }>("GET", `/records/${recordId}/suggestions`)).body.items;
    const path = `/records/${recordId}/suggestions`;
    expect(await d.f.request("DELETE", `${path}?ids=`)).toEqual({ status: 422, body: { detail: "No suggestions IDs provided" } });
    const many = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`).join(",");
    expect(await d.f.request("DELETE", `${path}?ids=${many}`)).toEqual({
      status: 422,
      body: { detail: "Cannot delete more than 100 suggestions at once" },
    });
    expect((await d.f.request("DELETE", `${path}?ids=${items[0]!.id}`, { headers: d.annotator.headers })).status).toBe(403);
    expect((await d.f.request("DELETE", `${path}?ids=${items[0]!.id}`)).status).toBe(204);
    expect((await d.f.request("DELETE", `/suggestions/${items[1]!.id}`, { headers: d.annotator.headers })).status).toBe(403);
    const one = await d.f.request<SuggestionJson>("DELETE", `/suggestions/${items[1]!.id}`, { headers: d.admin.headers });
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(items[1]!.id);
    expect((await d.f.request("DELETE", `/suggestions/${items[1]!.id}`)).status).toBe(404);
    expect((await d.f.request("DELETE", "/suggestions/xyz")).status).toBe(422);
    expect((await d.f.request<{ items: unknown[] }>("GET", path)).body.items).toEqual([]);
  });
});
