import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { MISSING, type Actor } from "../testing/fixtures.js";
import { recordItems, richDataset, type RichDataset } from "../records/testing.js";

interface Item {
  record: { id: string; fields: Record<string, unknown> };
  responses: { user_id: string; username: string; status: string; values: Record<string, { value: unknown }> | null; updated_at: string }[];
  suggestions: { question_name: string; value: unknown }[];
  disagreements: string[];
  majority: Record<string, { value: unknown }>;
  final_answer: { values: Record<string, { value: unknown }>; reviewer: { id: string; username: string } | null } | null;
  validated: boolean;
}
interface List {
  items: Item[];
  total: number;
  review: { reviewed: number; needing_review: number };
}

let server: TestServer;
let d: RichDataset;
let third: Actor;
let ids: string[];
beforeAll(async () => {
  server = await startTestServer();
  d = await richDataset(server, { minSubmitted: 2 });
  third = await d.f.member(d.workspaceId, "annotator");
  ids = (
    await d.f.request<{ items: { id: string }[] }>("POST", `/datasets/${d.datasetId}/records/bulk`, {
      body: { items: recordItems(3, "rev") },
    })
  ).body.items.map((r) => r.id);
  const answer = (i: number, values: Record<string, unknown>, who: Actor) =>
    d.f.ok(
      "POST",
      `/records/${ids[i]}/responses`,
      { status: "submitted", values: Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { value }])) },
      201,
      who.headers,
    );
  // record 0: a 2-1 split on the label and different multi-labels; record 1: a tie on the label and the same multi-label; record 2: agreement
  await answer(0, { label: "positive", multi: ["a"] }, d.annotator);
  await answer(0, { label: "positive", multi: ["b"] }, d.annotator2);
  await answer(0, { label: "negative" }, third);
  await answer(1, { label: "positive", multi: ["a", "b"] }, d.annotator);
  await answer(1, { label: "neutral", multi: ["b", "a"] }, d.annotator2);
  await answer(2, { label: "negative" }, d.annotator);
  await answer(2, { label: "negative" }, d.annotator2);
  await d.f.ok("PUT", `/records/${ids[1]}/suggestions`, { question_id: d.questions.label.id, value: "neutral", agent: "model-1" }, 201);
}, 60_000);
afterAll(async () => {
  await server.stop();
});

const list = (body: unknown = {}, headers?: Record<string, string>) =>
  d.f.request<List>("POST", `/datasets/${d.datasetId}/review/records`, { body, ...(headers ? { headers } : {}) });
const progress = async () =>
  (await d.f.request<{ reviewed: number; needing_review: number }>("GET", `/datasets/${d.datasetId}/review/progress`)).body;

describe("review: disagreements, side-by-side responses, final answers", () => {
  it("lists the records whose submitted responses differ, with every annotator's response, suggestions and the majority", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.items.map((i) => i.record.id)).toEqual([ids[0], ids[1]]);
    const [split, tie] = res.body.items;
    expect(split!.responses.map((r) => [r.username, r.values?.label?.value]).sort()).toEqual(
      [
        [d.annotator.username, "positive"],
        [d.annotator2.username, "positive"],
        [third.username, "negative"],
      ].sort(),
    );
    expect(split!.majority).toEqual({ label: { value: "positive" } });
    expect(split!.disagreements).toEqual(["label", "multi"]);
    // a tie has no majority; multi-labels in another order agree
    expect(tie!.majority.label).toBeUndefined();
    expect(tie!.majority.multi).toEqual({ value: ["a", "b"] });
    expect(tie!.disagreements).toEqual(["label"]);
    expect(tie!.suggestions).toEqual([expect.objectContaining({ question_name: "label", value: "neutral" })]);
    expect(res.body.review).toEqual({ reviewed: 0, needing_review: 2 });
  });

  it("filters disagreements on a chosen question, and can list every answered record", async () => {
    // multi-labels read back from the store as lists: record 0 differs, record 1 only in order
    expect((await list({ question: "multi" })).body.items.map((i) => i.record.id)).toEqual([ids[0]]);
    expect((await list({ question: "label" })).body.total).toBe(2);
    expect((await list({ disagreements: false })).body.total).toBe(3);
  });

  it("sets, changes and clears a final answer; the record shows as validated; responses stay as they were", async () => {
    const put = await d.f.request<{ values: unknown; reviewer: { username: string } }>("PUT", `/records/${ids[1]}/final-answer`, {
      body: { values: { label: { value: "neutral" } } },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ values: { label: { value: "neutral" } }, reviewer: { username: "owner" } });
    let item = (await d.f.request<Item>("GET", `/records/${ids[1]}/review`)).body;
    expect(item).toMatchObject({ validated: true, final_answer: { values: { label: { value: "neutral" } } } });
    expect(item.responses.find((r) => r.user_id === d.annotator.id)?.values?.label).toEqual({ value: "positive" });
    expect(await progress()).toEqual({ reviewed: 1, needing_review: 2 });
    expect((await list({ reviewed: false })).body.items.map((i) => i.record.id)).toEqual([ids[0]]);
    expect((await list({ reviewed: true })).body.items.map((i) => i.record.id)).toEqual([ids[1]]);

    const changed = await d.f.request("PUT", `/records/${ids[1]}/final-answer`, {
      body: { values: { label: { value: "positive" }, multi: { value: ["a"] } } },
      headers: d.admin.headers,
    });
    expect(changed.status).toBe(200);
    item = (await d.f.request<Item>("GET", `/records/${ids[1]}/review`)).body;
    expect(item.final_answer).toMatchObject({
      values: { label: { value: "positive" }, multi: { value: ["a"] } },
      reviewer: { username: d.admin.username },
    });

    expect((await d.f.request("DELETE", `/records/${ids[1]}/final-answer`)).status).toBe(204);
    expect((await d.f.request<Item>("GET", `/records/${ids[1]}/review`)).body).toMatchObject({ validated: false, final_answer: null });
    expect(await progress()).toEqual({ reviewed: 0, needing_review: 2 });
    expect((await d.f.request("DELETE", `/records/${ids[1]}/final-answer`)).status).toBe(404);
  });

  it("a final answer on a record that agrees counts it as reviewed", async () => {
    expect(
      (await d.f.request("PUT", `/records/${ids[2]}/final-answer`, { body: { values: { label: { value: "negative" } } } })).status,
    ).toBe(200);
    expect(await progress()).toEqual({ reviewed: 1, needing_review: 3 });
    expect((await d.f.request("DELETE", `/records/${ids[2]}/final-answer`)).status).toBe(204);
  });

  it("refuses final answers that do not fit the question, and changes nothing", async () => {
    const bad = async (values: unknown) => d.f.request<{ detail: string }>("PUT", `/records/${ids[0]}/final-answer`, { body: { values } });
    const invalidLabel = await bad({ label: { value: "bogus" } });
    expect(invalidLabel.status).toBe(422);
    expect(invalidLabel.body.detail).toContain("Final answer for question `label`");
    expect((await bad({ nope: { value: "x" } })).body.detail).toBe(`Question \`nope\` not found in dataset \`${d.datasetId}\``);
    expect((await bad({})).status).toBe(422);
    expect((await bad({ label: { value: null } })).status).toBe(422);
    expect((await bad({ ranking: { value: [{ value: "x", rank: 1 }] } })).status).toBe(422);
    expect((await bad({ span: { value: [{ start: 0, end: 999, label: "PER" }] } })).status).toBe(422);
    expect((await bad("nope")).status).toBe(422);
    expect((await d.f.request("PUT", `/records/${ids[0]}/final-answer`, { body: "{bad json" })).status).toBe(422);
    expect((await d.f.request<Item>("GET", `/records/${ids[0]}/review`)).body.final_answer).toBeNull();
  });

  it("is for owners and admins of the workspace only; bad ids are 4xx", async () => {
    for (const who of [d.annotator, d.outsideAdmin]) {
      expect((await list({}, who.headers)).status).toBe(403);
      expect((await d.f.request("GET", `/records/${ids[0]}/review`, { headers: who.headers })).status).toBe(403);
      expect(
        (
          await d.f.request("PUT", `/records/${ids[0]}/final-answer`, {
            body: { values: { label: { value: "positive" } } },
            headers: who.headers,
          })
        ).status,
      ).toBe(403);
      expect((await d.f.request("DELETE", `/records/${ids[0]}/final-answer`, { headers: who.headers })).status).toBe(403);
      expect((await d.f.request("GET", `/datasets/${d.datasetId}/review/progress`, { headers: who.headers })).status).toBe(403);
    }
    expect((await d.f.request<Item>("GET", `/records/${ids[0]}/review`)).body.final_answer).toBeNull();
    expect((await list({}, d.admin.headers)).status).toBe(200);
    expect((await d.f.request("GET", "/records/not-a-uuid/review")).status).toBe(422);
    expect(
      (await d.f.request("PUT", `/records/${MISSING}/final-answer`, { body: { values: { label: { value: "positive" } } } })).status,
    ).toBe(404);
    expect((await d.f.request("GET", `/datasets/${d.datasetId}/review/progress?question=nope`)).status).toBe(422);
    expect((await list({ question: "nope" })).status).toBe(422);
    expect((await d.f.request("POST", `/datasets/${d.datasetId}/review/records?limit=0`, { body: {} })).status).toBe(422);
  });

  it("the final answer goes with its record", async () => {
    const [extra] = (
      await d.f.request<{ items: { id: string }[] }>("POST", `/datasets/${d.datasetId}/records/bulk`, {
        body: { items: recordItems(1, "gone") },
      })
    ).body.items;
    expect(
      (await d.f.request("PUT", `/records/${extra!.id}/final-answer`, { body: { values: { label: { value: "positive" } } } })).status,
    ).toBe(200);
    expect((await d.f.request("DELETE", `/records/${extra!.id}`)).status).toBe(200);
    expect((await d.f.request("GET", `/records/${extra!.id}/review`)).status).toBe(404);
  });
});
