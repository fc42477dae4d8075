import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_HUB_TOKEN, startFakeHub, type FakeHub } from "@tessera/fake-hub";
import { FORBIDDEN, serverForFile, type Json } from "../testing/fixtures.js";

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

interface JobOut {
  id: string;
  status: string;
  error: string | null;
  result: Json | null;
}

async function waitForJob(id: string, timeoutMs = 120_000): Promise<JobOut> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fx.request<JobOut>("GET", `/jobs/${id}`);
    expect(res.status).toBe(200);
    if (res.body.status === "finished" || res.body.status === "failed") return res.body;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${res.body.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const labelQuestion = (name: string, options: string[], type = "label_selection") => ({
  name,
  title: name,
  required: true,
  settings: { type, options: options.map((o) => ({ value: o, text: o })) },
});

/** A published dataset with the given settings (created over HTTP). */
async function dataset(settings: {
  fields: Json[];
  questions: Json[];
  metadata?: Json[];
}): Promise<{ workspaceId: string; datasetId: string }> {
  const ws = await fx.workspace();
  const ds = await fx.dataset(ws.id);
  for (const field of settings.fields) await fx.field(ds.id, field);
  for (const question of settings.questions) await fx.question(ds.id, question);
  for (const property of settings.metadata ?? []) await fx.metadataProperty(ds.id, property);
  await fx.publish(ds.id);
  return { workspaceId: ws.id, datasetId: ds.id };
}

const sentimentSettings = {
  fields: [{ name: "text", title: "Text", required: true, settings: { type: "text" } }],
  questions: [labelQuestion("label", ["negative", "positive"])],
};

const records = (datasetId: string) =>
  fx.server.ctx.db
    .selectFrom("records")
    .select(["id", "external_id", "fields", "metadata"])
    .where("dataset_id", "=", datasetId)
    .orderBy("seq")
    .execute();

const suggestionsOf = async (datasetId: string) => {
  const rows = await fx.server.ctx.db
    .selectFrom("suggestions")
    .innerJoin("records", "records.id", "suggestions.record_id")
    .innerJoin("questions", "questions.id", "suggestions.question_id")
    .select(["records.external_id", "questions.name", "suggestions.value"])
    .where("records.dataset_id", "=", datasetId)
    .execute();
  return new Map(rows.map((r) => [`${r.external_id}/${r.name}`, JSON.parse(r.value) as unknown]));
};

const importBody = (name: string, mapping: Json, subset = "default", split = "train") => ({ name, subset, split, mapping });

describe("POST /api/v1/datasets/{id}/import", () => {
  it("imports the first 10,000 rows in pages of 100, class labels as names, external ids from a column", async () => {
    const { datasetId } = await dataset(sentimentSettings);
    const before = hub.requests.length;
    const res = await fx.request<JobOut>("POST", `/datasets/${datasetId}/import`, {
      body: importBody("tessera/sentiment-10k", {
        fields: [{ source: "text", target: "text" }],
        suggestions: [{ source: "label", target: "label" }],
        external_id: "id",
      }),
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: expect.any(String), status: "queued" });
    const job = await waitForJob(res.body.id);
    expect(job).toMatchObject({ status: "finished", error: null, result: { rows_read: 10000, records_stored: 10000, records_skipped: 0 } });

    const pages = hub.requests.slice(before).filter((r) => r.path === "/rows");
    expect(pages.map((r) => Number(r.query.offset))).toEqual(Array.from({ length: 100 }, (_, i) => i * 100));
    expect(
      pages.every(
        (r) =>
          r.query.length === "100" &&
          r.query.dataset === "tessera/sentiment-10k" &&
          r.query.config === "default" &&
          r.query.split === "train",
      ),
    ).toBe(true);
    expect(pages.every((r) => r.authorization === `Bearer ${FAKE_HUB_TOKEN}`)).toBe(true);

    const stored = await records(datasetId);
    expect(stored).toHaveLength(10000);
    expect(stored[0]!.external_id).toBe("review-00000");
    expect(stored.at(-1)!.external_id).toBe("review-09999");
    const expected = (await (
      await fetch(`${hub.url}/rows?dataset=tessera/sentiment-10k&config=default&split=train&offset=0&length=100`)
    ).json()) as { rows: { row: { id: string; text: string; label: number } }[] };
    expect(JSON.parse(stored[0]!.fields)).toEqual({ text: expected.rows[0]!.row.text });
    const suggestions = await suggestionsOf(datasetId);
    for (const { row } of expected.rows) {
      const value = suggestions.get(`${row.id}/label`);
      // -1 is "no label": no suggestion; otherwise the ClassLabel index becomes its name.
      expect(value).toBe(row.label === -1 ? undefined : ["negative", "positive"][row.label]);
    }
    expect(expected.rows[96]!.row.label).toBe(-1);
  });

  it("stores image cells as their src, chat lists as chat fields and multi-label lists as names; split_index external ids", async () => {
    const images = await dataset({
      fields: [
        { name: "image", title: "Image", required: true, settings: { type: "image" } },
        { name: "caption", title: "Caption", required: false, settings: { type: "text" } },
      ],
      questions: [labelQuestion("shape", ["circle", "square", "triangle"])],
    });
    const imageJob = await fx.request<JobOut>("POST", `/datasets/${images.datasetId}/import`, {
      body: importBody("tessera/shapes-images", {
        fields: [
          { source: "image", target: "image" },
          { source: "caption", target: "caption" },
        ],
        suggestions: [{ source: "label", target: "shape" }],
      }),
    });
    expect((await waitForJob(imageJob.body.id)).status).toBe("finished");
    const stored = await records(images.datasetId);
    expect(stored.map((r) => r.external_id)).toEqual(Array.from({ length: 12 }, (_, i) => `train_${i}`));
    const first = JSON.parse(stored[1]!.fields) as { image: string; caption: string };
    expect(first.image).toMatch(
      new RegExp(`^${hub.url}/assets/tessera/shapes-images/--/[0-9a-f]+/--/default/train/1/image/image\\.png\\?`),
    );
    expect((await fetch(first.image)).headers.get("content-type")).toBe("image/png");
    expect((await suggestionsOf(images.datasetId)).get("train_1/shape")).toBe("square");

    const chat = await dataset({
      fields: [{ name: "conversation", title: "Conversation", required: true, settings: { type: "chat" } }],
      questions: [labelQuestion("good", ["yes", "no"])],
      metadata: [{ name: "category", title: "Category", settings: { type: "terms", values: null } }],
    });
    const chatJob = await fx.request<JobOut>("POST", `/datasets/${chat.datasetId}/import`, {
      body: importBody("tessera/chat-demo", {
        fields: [{ source: "messages", target: "conversation" }],
        metadata: [{ source: "category", target: "category" }],
      }),
    });
    expect((await waitForJob(chatJob.body.id)).status).toBe("finished");
    const conversation = (await records(chat.datasetId))[0]!;
    expect(JSON.parse(conversation.fields)).toEqual({
      conversation: [
        { role: "user", content: "How do I boil an egg?" },
        { role: "assistant", content: expect.stringContaining("8 minutes") },
      ],
    });
    expect(JSON.parse(conversation.metadata!)).toEqual({ category: "cooking" });

    const news = await dataset({
      fields: [{ name: "text", title: "Text", required: true, settings: { type: "text" } }],
      questions: [labelQuestion("topics", ["politics", "sports", "science", "business", "culture"], "multi_label_selection")],
    });
    const newsJob = await fx.request<JobOut>("POST", `/datasets/${news.datasetId}/import`, {
      body: importBody("tessera/news-topics", {
        fields: [{ source: "text", target: "text" }],
        suggestions: [{ source: "topics", target: "topics" }],
      }),
    });
    expect((await waitForJob(newsJob.body.id)).status).toBe("finished");
    expect((await suggestionsOf(news.datasetId)).get("train_0/topics")).toEqual(["politics", "business"]);
  });

  it("maps numeric metadata columns and re-imports idempotently (upsert by external id)", async () => {
    const reviews = await dataset({
      fields: [{ name: "review", title: "Review", required: true, settings: { type: "text" } }],
      questions: [
        labelQuestion("sentiment", ["negative", "positive"]),
        {
          name: "stars",
          title: "Stars",
          required: false,
          settings: { type: "rating", options: [1, 2, 3, 4, 5].map((value) => ({ value })) },
        },
      ],
      metadata: [
        { name: "price", title: "Price", settings: { type: "float" } },
        { name: "votes", title: "Votes", settings: { type: "integer" } },
      ],
    });
    const body = importBody(
      "tessera/product-reviews",
      {
        fields: [{ source: "review", target: "review" }],
        metadata: [
          { source: "price", target: "price" },
          { source: "helpful_votes", target: "votes" },
        ],
        suggestions: [
          { source: "sentiment", target: "sentiment" },
          { source: "rating", target: "stars" },
        ],
      },
      "en",
      "test",
    );
    for (let run = 0; run < 2; run++) {
      const res = await fx.request<JobOut>("POST", `/datasets/${reviews.datasetId}/import`, { body });
      expect(res.status).toBe(202);
      expect((await waitForJob(res.body.id)).status).toBe("finished");
    }
    const stored = await records(reviews.datasetId);
    expect(stored).toHaveLength(10);
    const row = (await (await fetch(`${hub.url}/rows?dataset=tessera/product-reviews&config=en&split=test&length=1`)).json()) as {
      rows: { row: { price: number; helpful_votes: number; rating: number } }[];
    };
    expect(JSON.parse(stored[0]!.metadata!)).toEqual({ price: row.rows[0]!.row.price, votes: row.rows[0]!.row.helpful_votes });
    expect((await suggestionsOf(reviews.datasetId)).get("test_0/stars")).toBe(row.rows[0]!.row.rating);
  });

  it("uses the Hub token for gated datasets and waits out ResponseNotReady", async () => {
    for (const name of ["tessera/gated-demo", "tessera/slow-start"]) {
      const { datasetId } = await dataset(sentimentSettings);
      const res = await fx.request<JobOut>("POST", `/datasets/${datasetId}/import`, {
        body: importBody(name, { fields: [{ source: "text", target: "text" }], external_id: "id" }),
      });
      expect(res.status).toBe(202);
      expect(await waitForJob(res.body.id)).toMatchObject({ status: "finished" });
      expect((await records(datasetId)).length).toBeGreaterThan(0);
    }
  });

  it("marks the job failed with the error when the Hub fails mid-import (rows read so far stay stored)", async () => {
    const { datasetId } = await dataset(sentimentSettings);
    const res = await fx.request<JobOut>("POST", `/datasets/${datasetId}/import`, {
      body: importBody("tessera/broken-rows", { fields: [{ source: "text", target: "text" }], external_id: "id" }),
    });
    expect(res.status).toBe(202);
    const job = await waitForJob(res.body.id);
    expect(job.status).toBe("failed");
    expect(job.error).toMatch(/UnexpectedError/);
    expect(job.result).toBeNull();
    expect(await records(datasetId)).toHaveLength(200);
  });

  it("refuses an unknown repo, subset, split or column with a clear 422 (and a bad repo id without calling the Hub)", async () => {
    const { datasetId } = await dataset(sentimentSettings);
    const mapping = { fields: [{ source: "text", target: "text" }] };
    const unknown = await fx.request("POST", `/datasets/${datasetId}/import`, { body: importBody("nobody/nothing", mapping) });
    expect(unknown).toEqual({ status: 422, body: { detail: "Dataset not found or available on Hugging Face" } });
    const split = await fx.request("POST", `/datasets/${datasetId}/import`, {
      body: importBody("tessera/sentiment-10k", mapping, "default", "validation"),
    });
    expect(split).toEqual({
      status: 422,
      body: { detail: "Subset `default` with split `validation` not found in Hugging Face dataset `tessera/sentiment-10k`" },
    });
    const column = await fx.request("POST", `/datasets/${datasetId}/import`, {
      body: importBody("tessera/sentiment-10k", { fields: [{ source: "body", target: "text" }] }),
    });
    expect(column).toEqual({
      status: 422,
      body: { detail: "Columns not found in Hugging Face dataset `tessera/sentiment-10k` (subset `default`): body" },
    });
    const target = await fx.request("POST", `/datasets/${datasetId}/import`, {
      body: importBody("tessera/sentiment-10k", { fields: [{ source: "text", target: "nope" }] }),
    });
    expect(target.status).toBe(422);
    expect(target.body).toEqual({ detail: expect.stringContaining("field `nope`") });

    const before = hub.requests.length;
    const ssrf = await fx.request<{ detail: { code: string } }>("POST", `/datasets/${datasetId}/import`, {
      body: importBody("http://169.254.169.254/latest", mapping),
    });
    expect(ssrf.status).toBe(422);
    expect(ssrf.body.detail.code).toBe("argilla.api.errors::ValidationError");
    expect(hub.requests.length).toBe(before);

    const noFields = await fx.request<{ detail: { params: { errors: { loc: unknown[] }[] } } }>("POST", `/datasets/${datasetId}/import`, {
      body: importBody("tessera/sentiment-10k", { fields: [] }),
    });
    expect(noFields.status).toBe(422);
    expect(noFields.body.detail.params.errors[0]!.loc).toEqual(["body", "mapping", "fields"]);
    expect((await fx.request("POST", `/datasets/${datasetId}/import`, { body: "{broken" })).status).toBe(422);
  });

  it("refuses a dataset that is not published", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    await fx.field(ds.id, { name: "text", title: "Text", settings: { type: "text" } });
    const res = await fx.request("POST", `/datasets/${ds.id}/import`, {
      body: importBody("tessera/sentiment-10k", { fields: [{ source: "text", target: "text" }] }),
    });
    expect(res).toEqual({ status: 422, body: { detail: "It is not possible to import records to a non published dataset" } });
  });

  it("lets owners and admin members import; refuses annotators and admins of other workspaces", async () => {
    const { workspaceId, datasetId } = await dataset(sentimentSettings);
    const body = importBody("tessera/chat-demo", { fields: [{ source: "prompt", target: "text" }] });
    const annotator = await fx.member(workspaceId, "annotator");
    expect(await fx.request("POST", `/datasets/${datasetId}/import`, { body, headers: annotator.headers })).toEqual({
      status: 403,
      body: FORBIDDEN,
    });
    const outsider = await fx.user("admin");
    expect((await fx.request("POST", `/datasets/${datasetId}/import`, { body, headers: outsider.headers })).status).toBe(403);
    expect((await fx.request("POST", `/datasets/${datasetId}/import`, { body, headers: null })).status).toBe(401);
    expect((await fx.request("POST", `/datasets/00000000-0000-4000-8000-000000000000/import`, { body })).status).toBe(404);
    const admin = await fx.member(workspaceId, "admin");
    const res = await fx.request<JobOut>("POST", `/datasets/${datasetId}/import`, { body, headers: admin.headers });
    expect(res.status).toBe(202);
    expect((await waitForJob(res.body.id)).status).toBe("finished");
  });
});

describe("GET /api/v1/hub/settings", () => {
  it("tells the web app (without credentials) which dataset viewer URL to call", async () => {
    expect(await fx.request("GET", "/hub/settings", { headers: null })).toEqual({ status: 200, body: { datasets_server_url: hub.url } });
  });
});

describe("GET /api/v1/jobs/{id}", () => {
  it("answers owners and admins, refuses annotators, and 404s an unknown id first", async () => {
    const { workspaceId, datasetId } = await dataset(sentimentSettings);
    const res = await fx.request<JobOut>("POST", `/datasets/${datasetId}/import`, {
      body: importBody("tessera/chat-demo", { fields: [{ source: "prompt", target: "text" }] }),
    });
    await waitForJob(res.body.id);
    const admin = await fx.user("admin");
    expect((await fx.request<JobOut>("GET", `/jobs/${res.body.id}`, { headers: admin.headers })).body).toMatchObject({
      id: res.body.id,
      status: "finished",
    });
    const annotator = await fx.member(workspaceId, "annotator");
    expect(await fx.request("GET", `/jobs/${res.body.id}`, { headers: annotator.headers })).toEqual({ status: 403, body: FORBIDDEN });
    expect(await fx.request("GET", "/jobs/no-such-job", { headers: annotator.headers })).toEqual({
      status: 404,
      body: { detail: "Job with id `no-such-job` not found" },
    });
    expect((await fx.request("GET", `/jobs/${res.body.id}`, { headers: null })).status).toBe(401);
  });
});
