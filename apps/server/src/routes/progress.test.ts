import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../testing/test-server.js";
import type { RichDataset } from "../records/testing.js";
import { datasetWithRecords } from "../testing/dataset-with-records.js";

let server: TestServer;
let d: RichDataset;
let ids: string[];
beforeAll(async () => {
  ({ server, d, ids } = await datasetWithRecords(5, { prefix: "p" }));
  const respond = (i: number, status: string, headers: Record<string, string>) =>
    d.f.request("POST", `/records/${ids[i]}/responses`, { body: { status, values: { label: { value: "positive" } } }, headers });
  await respond(0, "submitted", d.annotator.headers);
  await respond(1, "draft", d.annotator.headers);
  await respond(2, "discarded", d.annotator.headers);
  await respond(0, "draft", d.annotator2.headers);
}, 60_000);
afterAll(async () => {
  await server.stop();
});

describe("progress and metrics", () => {
  it("GET /datasets/{id}/progress counts records by status", async () => {
    const res = await d.f.request("GET", `/datasets/${d.datasetId}/progress`, { headers: d.annotator.headers });
    expect(res).toEqual({ status: 200, body: { total: 5, completed: 1, pending: 4 } });
  });

  it("GET /datasets/{id}/users/progress groups responses by record status then response status", async () => {
    const res = await d.f.request<{ users: { username: string }[] }>("GET", `/datasets/${d.datasetId}/users/progress`);
    expect(res.status).toBe(200);
    const byName = Object.fromEntries(res.body.users.map((u) => [u.username, u]));
    expect(byName[d.annotator.username]).toEqual({
      username: d.annotator.username,
      completed: { submitted: 1, discarded: 0, draft: 0 },
      pending: { submitted: 0, discarded: 1, draft: 1 },
    });
    expect(byName[d.annotator2.username]).toEqual({
      username: d.annotator2.username,
      completed: { submitted: 0, discarded: 0, draft: 1 },
      pending: { submitted: 0, discarded: 0, draft: 0 },
    });
  });

  it("GET /me/datasets/{id}/metrics counts the caller's responses and the pending records left to them", async () => {
    expect(await d.f.request("GET", `/me/datasets/${d.datasetId}/metrics`, { headers: d.annotator.headers })).toEqual({
      status: 200,
      body: { responses: { total: 5, submitted: 1, discarded: 1, draft: 1, pending: 2 } },
    });
    expect(
      (
        await d.f.request<{ responses: { pending: number } }>("GET", `/me/datasets/${d.datasetId}/metrics`, {
          headers: d.annotator2.headers,
        })
      ).body.responses.pending,
    ).toBe(4);
  });

  it("refuses outsiders, anonymous callers, malformed and unknown ids", async () => {
    for (const path of ["progress", "users/progress"]) {
      expect((await d.f.request("GET", `/datasets/${d.datasetId}/${path}`, { headers: d.outsideAdmin.headers })).status).toBe(403);
      expect((await d.f.request("GET", `/datasets/${d.datasetId}/${path}`, { headers: null })).status).toBe(401);
      expect((await d.f.request("GET", `/datasets/bad/${path}`)).status).toBe(422);
      expect((await d.f.request("GET", `/datasets/00000000-0000-4000-8000-000000000000/${path}`)).status).toBe(404);
    }
    expect((await d.f.request("GET", `/me/datasets/${d.datasetId}/metrics`, { headers: d.outsideAdmin.headers })).status).toBe(403);
  });
});
