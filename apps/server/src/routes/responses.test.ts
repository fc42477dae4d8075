import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../testing/test-server.js";
import { FORBIDDEN, type Json } from "../testing/fixtures.js";
import type { RichDataset } from "../records/testing.js";
import { datasetWithRecords } from "../testing/dataset-with-records.js";
import { LAST_ACTIVITY_RESOLUTION_MS } from "../responses/response-writes.js";

let server: TestServer;
let d: RichDataset;
let ids: string[];
beforeAll(async () => {
  ({ server, d, ids } = await datasetWithRecords(12, { prefix: "resp", minSubmitted: 2 }));
}, 60_000);
afterAll(async () => {
  await server.stop();
});

type ResponseJson = Json & { id: string; status: string; values: Json | null; record_id: string; user_id: string };
const respond = (recordId: string, body: unknown, headers = d.annotator.headers) =>
  d.f.request<ResponseJson>("POST", `/records/${recordId}/responses`, { body, headers });
const recordStatus = async (id: string) => (await d.f.request<{ status: string }>("GET", `/records/${id}`)).body.status;

describe("POST /records/{id}/responses", () => {
  it("creates the caller's response (201), refuses a second one (409), and completes the record at min_submitted", async () => {
    const res = await respond(ids[0]!, { status: "submitted", values: { label: { value: "positive" } }, user_id: "ignored" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: "submitted",
      values: { label: { value: "positive" } },
      record_id: ids[0],
      user_id: d.annotator.id,
    });
    expect(Object.keys(res.body).sort()).toEqual(["id", "inserted_at", "record_id", "status", "updated_at", "user_id", "values"]);
    expect(await respond(ids[0]!, { status: "draft", values: {} })).toEqual({
      status: 409,
      body: { detail: `Response already exists for record with id \`${ids[0]}\` and by user with id \`${d.annotator.id}\`` },
    });
    expect(await recordStatus(ids[0]!)).toBe("pending");
    expect((await respond(ids[0]!, { status: "submitted", values: { label: { value: "negative" } } }, d.annotator2.headers)).status).toBe(
      201,
    );
    expect(await recordStatus(ids[0]!)).toBe("completed");
  });

  it.each([
    ["submitted without values", { status: "submitted", values: {} }, "missing response values for submitted response"],
    [
      "submitted without a required question",
      { status: "submitted", values: { comment: { value: "x" } } },
      "missing response value for required question with name='label'",
    ],
    [
      "an unknown question",
      { status: "draft", values: { nope: { value: "x" } } },
      "found response value for non configured question with name='nope'",
    ],
    [
      "a label out of the options",
      { status: "draft", values: { label: { value: "maybe" } } },
      "'maybe' is not a valid label for label selection question.",
    ],
    [
      "a rating given as a string",
      { status: "draft", values: { rating: { value: "3" } } },
      "'3' is not a valid rating for rating question.",
    ],
    ["an empty multi-label", { status: "draft", values: { multi: { value: [] } } }, "found empty list"],
    [
      "an unknown multi-label",
      { status: "draft", values: { multi: { value: ["a", "z"] } } },
      "['z'] are not valid labels for multi label selection question.",
    ],
    [
      "a text that is not a string",
      { status: "draft", values: { comment: { value: 3 } } },
      "text question expects a text value, found int",
    ],
    [
      "an incomplete submitted ranking",
      { status: "submitted", values: { label: { value: "positive" }, ranking: { value: [{ value: "x", rank: 1 }] } } },
      "ranking question expects a list containing 2 values, found a list of 1 values",
    ],
    [
      "a span past the text",
      { status: "draft", values: { span: { value: [{ label: "PER", start: 0, end: 500 }] } } },
      "span question response value `end` must have a value lower or equal than record field `text` length",
    ],
    [
      "overlapping spans",
      {
        status: "draft",
        values: {
          span: {
            value: [
              { label: "PER", start: 0, end: 5 },
              { label: "ORG", start: 3, end: 8 },
            ],
          },
        },
      },
      "overlapping values found between spans at index idx=0 and idx=1",
    ],
    [
      "a span with an unknown label",
      { status: "draft", values: { span: { value: [{ label: "LOC", start: 0, end: 2 }] } } },
      "undefined label 'LOC' for span question.",
    ],
  ])("refuses %s with a flat 422", async (_label, body, message) => {
    const res = await respond(ids[1]!, body);
    expect(res.status).toBe(422);
    expect((res.body as unknown as { detail: string }).detail).toContain(message);
  });

  it("accepts every question type, draft without required answers, discarded without values", async () => {
    const values = {
      label: { value: "neutral" },
      multi: { value: ["a", "c"] },
      rating: { value: 5 },
      comment: { value: "fine" },
      ranking: {
        value: [
          { value: "y", rank: 1 },
          { value: "x", rank: 2 },
        ],
      },
      span: { value: [{ label: "PER", start: 0, end: 6 }] },
    };
    expect((await respond(ids[2]!, { status: "submitted", values })).status).toBe(201);
    expect((await respond(ids[3]!, { status: "draft", values: { comment: { value: "later" } } })).status).toBe(201);
    expect((await respond(ids[4]!, { status: "discarded" })).status).toBe(201);
  });

  it("refuses malformed bodies, bad ids, outsiders and anonymous callers", async () => {
    expect((await respond(ids[5]!, { status: "weird" })).status).toBe(422);
    expect((await d.f.request("POST", `/records/${ids[5]}/responses`, { body: "{bad", headers: d.annotator.headers })).status).toBe(422);
    expect((await respond("bad-id", { status: "discarded" })).status).toBe(422);
    expect((await respond("00000000-0000-4000-8000-000000000000", { status: "discarded" })).status).toBe(404);
    expect(await respond(ids[5]!, { status: "discarded" }, d.outsideAdmin.headers)).toEqual({ status: 403, body: FORBIDDEN });
    expect((await d.f.request("POST", `/records/${ids[5]}/responses`, { body: { status: "discarded" }, headers: null })).status).toBe(401);
  });
});

describe("the dataset's last activity", () => {
  const lastActivity = async () =>
    (await d.f.request<{ last_activity_at: string }>("GET", `/datasets/${d.datasetId}`)).body.last_activity_at;
  it("is touched by a response change, at most a second behind (no write of the dataset's row per submit)", async () => {
    const old = "2020-01-01T00:00:00.000Z";
    await server.ctx.db.updateTable("datasets").set({ last_activity_at: old }).where("id", "=", d.datasetId).execute();
    const before = Date.now();
    const first = await respond(ids[11]!, { status: "draft", values: { label: { value: "positive" } } });
    expect(first.status).toBe(201);
    const touched = await lastActivity();
    expect(Date.parse(touched)).toBeGreaterThanOrEqual(before - 5);
    // a second change within the second leaves it (it is at most a second behind): written just before, so always within it
    const recent = new Date().toISOString();
    await server.ctx.db.updateTable("datasets").set({ last_activity_at: recent }).where("id", "=", d.datasetId).execute();
    expect((await respond(ids[11]!, { status: "draft", values: { label: { value: "negative" } } }, d.annotator2.headers)).status).toBe(201);
    expect(await lastActivity()).toBe(recent);
    await new Promise((r) => setTimeout(r, LAST_ACTIVITY_RESOLUTION_MS + 50));
    const put = await d.f.request("PUT", `/responses/${first.body.id}`, {
      body: { status: "draft", values: { label: { value: "negative" } } },
    });
    expect(put.status).toBe(200);
    expect(Date.parse(await lastActivity())).toBeGreaterThan(Date.parse(touched));
  });
});

describe("PUT and DELETE /responses/{id}", () => {
  it("lets the author update and delete, recomputing the record status", async () => {
    const a = (await respond(ids[6]!, { status: "submitted", values: { label: { value: "positive" } } })).body;
    const b = (await respond(ids[6]!, { status: "draft", values: { label: { value: "positive" } } }, d.annotator2.headers)).body;
    expect(await recordStatus(ids[6]!)).toBe("pending");
    const put = await d.f.request<ResponseJson>("PUT", `/responses/${b.id}`, {
      body: { status: "submitted", values: { label: { value: "negative" } } },
      headers: d.annotator2.headers,
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ status: "submitted", values: { label: { value: "negative" } } });
    expect(await recordStatus(ids[6]!)).toBe("completed");
    expect((await d.f.request("PUT", `/responses/${b.id}`, { body: { status: "submitted" }, headers: d.annotator2.headers })).status).toBe(
      422,
    );
    // another annotator may not touch it; an admin member may; an outside admin may not
    expect(await d.f.request("PUT", `/responses/${a.id}`, { body: { status: "discarded" }, headers: d.annotator2.headers })).toEqual({
      status: 403,
      body: FORBIDDEN,
    });
    expect((await d.f.request("DELETE", `/responses/${a.id}`, { headers: d.outsideAdmin.headers })).status).toBe(403);
    const del = await d.f.request<ResponseJson>("DELETE", `/responses/${a.id}`, { headers: d.admin.headers });
    expect(del.status).toBe(200);
    expect(del.body.id).toBe(a.id);
    expect(await recordStatus(ids[6]!)).toBe("pending");
    expect((await d.f.request("DELETE", `/responses/${a.id}`)).status).toBe(404);
    expect((await d.f.request("PUT", "/responses/xyz", { body: { status: "discarded" } })).status).toBe(422);
  });
});

describe("PUT /responses/{id} with If-Match (the updated_at the change was based on)", () => {
  it("updates when the response is unchanged, answers 412 and keeps the newer response when it changed meanwhile", async () => {
    const created = (await respond(ids[7]!, { status: "draft", values: { label: { value: "positive" } } })).body as ResponseJson & {
      updated_at: string;
    };
    const put = (body: unknown, ifMatch: string) =>
      d.f.request<ResponseJson & { updated_at: string }>("PUT", `/responses/${created.id}`, {
        body,
        headers: { ...d.annotator.headers, "if-match": ifMatch },
      });
    // another writer (the SDK, without the header) changes it first
    const other = await d.f.request<ResponseJson & { updated_at: string }>("PUT", `/responses/${created.id}`, {
      body: { status: "submitted", values: { label: { value: "neutral" } } },
      headers: d.annotator.headers,
    });
    expect(other.status).toBe(200);
    expect(other.body.updated_at).not.toBe(created.updated_at);
    const stale = await put({ status: "submitted", values: { label: { value: "negative" } } }, `"${created.updated_at}"`);
    expect(stale).toEqual({ status: 412, body: { detail: `Response with id \`${created.id}\` was changed after ${created.updated_at}` } });
    expect(
      (await d.f.request<{ responses: ResponseJson[] }>("GET", `/records/${ids[7]}`)).body.responses.find((r) => r.id === created.id)
        ?.values,
    ).toEqual({ label: { value: "neutral" } });
    // based on the current version (quoted or bare), it goes through; "*" means any version
    const fresh = await put({ status: "submitted", values: { label: { value: "negative" } } }, `"${other.body.updated_at}"`);
    expect(fresh.status).toBe(200);
    expect((await put({ status: "draft", values: { label: { value: "positive" } } }, fresh.body.updated_at)).status).toBe(200);
    expect((await put({ status: "discarded" }, "*")).status).toBe(200);
  });
});

describe("POST /me/responses/bulk", () => {
  it("upserts the caller's responses and reports errors per item", async () => {
    const res = await d.f.request<{ items: { item: ResponseJson | null; error: { detail: string } | null }[] }>(
      "POST",
      "/me/responses/bulk",
      {
        headers: d.annotator.headers,
        body: {
          items: [
            { record_id: ids[7], status: "submitted", values: { label: { value: "positive" } } },
            { record_id: ids[7], status: "draft", values: { label: { value: "negative" } } },
            { record_id: ids[8], status: "submitted", values: { label: { value: "nope" } } },
            { record_id: "00000000-0000-4000-8000-000000000000", status: "discarded" },
          ],
        },
      },
    );
    expect(res.status).toBe(200);
    const [first, second, third, fourth] = res.body.items;
    expect(first!.error).toBeNull();
    expect(second!.item).toMatchObject({ id: first!.item!.id, status: "draft" });
    expect(third!.item).toBeNull();
    expect(third!.error!.detail).toContain("'nope' is not a valid label");
    expect(fourth).toEqual({ item: null, error: { detail: "Record with id `00000000-0000-4000-8000-000000000000` not found" } });
    const outsider = await d.f.request<{ items: { error: { detail: string } | null }[] }>("POST", "/me/responses/bulk", {
      headers: d.outsideAdmin.headers,
      body: { items: [{ record_id: ids[9], status: "discarded" }] },
    });
    expect(outsider.body.items[0]!.error).toEqual({ detail: "Operation not allowed" });
  });

  it("limits items to 1..100", async () => {
    expect((await d.f.request("POST", "/me/responses/bulk", { body: { items: [] } })).status).toBe(422);
    const many = Array.from({ length: 101 }, () => ({ record_id: ids[10], status: "discarded" }));
    expect((await d.f.request("POST", "/me/responses/bulk", { body: { items: many } })).status).toBe(422);
  });
});
