import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { MISSING } from "../testing/fixtures.js";
import { recordItems, richDataset, type RichDataset } from "../records/testing.js";

type Figure = { value: number | null; records: number; responses: number };
interface Agreement {
  records: number;
  responses: number;
  annotators: { id: string; username: string; responses: number }[];
  questions: {
    name: string;
    type: string;
    records: number;
    responses: number;
    primary_metric: string;
    figures: Record<string, Figure>;
    pairs: { user_ids: string[]; records: number; figures: Record<string, Figure> }[];
    lowest: { record_id: string; agreement: number; validated: boolean }[];
  }[];
  lowest: { record_id: string; questions: string[] }[];
  review: { reviewed: number; needing_review: number };
}

let server: TestServer;
let d: RichDataset;
let ids: string[];
beforeAll(async () => {
  server = await startTestServer();
  d = await richDataset(server, { minSubmitted: 2 });
  const genres = ["news", "news", "blog", "blog"];
  ids = (
    await d.f.request<{ items: { id: string }[] }>("POST", `/datasets/${d.datasetId}/records/bulk`, {
      body: { items: recordItems(4, "agr", (i) => ({ metadata: { genre: genres[i] } })) },
    })
  ).body.items.map((r) => r.id);
  const answer = (i: number, label: string, headers: Record<string, string>, status = "submitted", rating = 3) =>
    d.f.ok(
      "POST",
      `/records/${ids[i]}/responses`,
      { status, values: { label: { value: label }, rating: { value: rating } } },
      201,
      headers,
    );
  // record 0 agrees, record 1 disagrees on the label, record 2 agrees, record 3 has one submitted response and a draft
  await answer(0, "positive", d.annotator.headers);
  await answer(0, "positive", d.annotator2.headers);
  await answer(1, "positive", d.annotator.headers);
  await answer(1, "negative", d.annotator2.headers, "submitted", 5);
  await answer(2, "negative", d.annotator.headers);
  await answer(2, "negative", d.annotator2.headers);
  await answer(3, "neutral", d.annotator.headers);
  await answer(3, "negative", d.annotator2.headers, "draft");
}, 60_000);
afterAll(async () => {
  await server.stop();
});

const agreement = (body?: unknown, headers?: Record<string, string>) =>
  d.f.request<Agreement>("POST", `/datasets/${d.datasetId}/agreement`, { body: body ?? {}, ...(headers ? { headers } : {}) });

describe("agreement endpoint", () => {
  it("computes per question figures from submitted responses only, with the records and responses they use", async () => {
    const res = await agreement();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ records: 4, responses: 7 });
    const label = res.body.questions.find((q) => q.name === "label")!;
    expect(label).toMatchObject({ type: "label_selection", records: 3, responses: 6, primary_metric: "alpha_nominal" });
    // 6 values (3 positive, 3 negative), one disagreeing record: D_o = 2/6, D_e = 18/30, alpha = 1 - (1/3)/(3/5) = 4/9
    expect(label.figures.alpha_nominal).toEqual({ value: expect.closeTo(4 / 9, 12), records: 3, responses: 6 });
    expect(label.figures.percent_agreement?.value).toBeCloseTo(2 / 3, 12);
    expect(label.figures.fleiss_kappa?.records).toBe(3);
    // Cohen: p_o = 2/3, p_e = 2/3*1/3 + 1/3*2/3 = 4/9 -> (2/9)/(5/9) = 0.4
    expect(label.pairs).toHaveLength(1);
    expect(label.pairs[0]!.user_ids.sort()).toEqual([d.annotator.id, d.annotator2.id].sort());
    expect(label.pairs[0]!.figures.cohen_kappa).toEqual({ value: expect.closeTo(0.4, 12), records: 3, responses: 6 });
    expect(label.lowest.map((l) => l.record_id)).toEqual([ids[1]]);
    const rating = res.body.questions.find((q) => q.name === "rating")!;
    expect(Object.keys(rating.figures).sort()).toEqual(["alpha_interval", "alpha_ordinal", "fleiss_kappa", "percent_agreement"]);
    // ratings 3,3 | 3,5 | 3,3: D_o = 2*4/6, D_e = 2*5*1*4/30, alpha = 0; 2 of 3 records agree
    expect(rating.figures.alpha_interval?.value).toBeCloseTo(0, 12);
    expect(rating.figures.percent_agreement).toEqual({ value: expect.closeTo(2 / 3, 12), records: 3, responses: 6 });
    const text = res.body.questions.find((q) => q.name === "comment")!;
    expect(text).toMatchObject({ records: 0, figures: { percent_agreement: { value: null, records: 0, responses: 0 } } });
    expect(res.body.lowest[0]).toEqual({ record_id: ids[1], agreement: 0, questions: ["label", "rating"], validated: false });
    expect(res.body.review).toEqual({ reviewed: 0, needing_review: 1 });
    expect(res.body.annotators.map((a) => a.username).sort()).toEqual([d.annotator.username, d.annotator2.username].sort());
  });

  it("GET gives the same figures, optionally for one question", async () => {
    const res = await d.f.request<Agreement>("GET", `/datasets/${d.datasetId}/agreement?question=label`);
    expect(res.status).toBe(200);
    expect(res.body.questions.map((q) => q.name)).toEqual(["label"]);
    expect(res.body.questions[0]!.figures.alpha_nominal?.value).toBeCloseTo(4 / 9, 12);
  });

  it("restricts to the records matching metadata and status filters", async () => {
    const news = await agreement({
      question: "label",
      filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "genre" }, values: ["news"] }] },
    });
    expect(news.status).toBe(200);
    expect(news.body.questions[0]).toMatchObject({ records: 2, responses: 4 });
    expect(news.body.questions[0]!.figures.percent_agreement?.value).toBe(0.5);
    const completed = await agreement({
      question: "label",
      filters: { and: [{ type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] }] },
    });
    expect(completed.body.questions[0]).toMatchObject({ records: 3, responses: 6 });
  });

  it("restricts to chosen annotators", async () => {
    const res = await agreement({ question: "label", user_ids: [d.annotator.id] });
    expect(res.body).toMatchObject({ records: 4, responses: 4 });
    expect(res.body.questions[0]).toMatchObject({ records: 0, pairs: [] });
  });

  it("is for owners and admins of the workspace only", async () => {
    expect((await agreement({}, d.admin.headers)).status).toBe(200);
    expect((await agreement({}, d.annotator.headers)).status).toBe(403);
    expect((await agreement({}, d.outsideAdmin.headers)).status).toBe(403);
    expect((await d.f.request("GET", `/datasets/${d.datasetId}/agreement`, { headers: d.annotator.headers })).status).toBe(403);
    expect((await d.f.request("GET", `/datasets/${d.datasetId}/agreement`, { headers: null })).status).toBe(401);
  });

  it("answers bad input with a clear 4xx", async () => {
    const unknown = await agreement({ question: "nope" });
    expect(unknown).toEqual({ status: 422, body: { detail: `Question \`nope\` not found in dataset \`${d.datasetId}\`` } });
    expect((await d.f.request("GET", `/datasets/${d.datasetId}/agreement?question=nope`)).status).toBe(422);
    expect((await agreement({ user_ids: ["not-a-uuid"] })).status).toBe(422);
    expect(
      (
        await agreement({
          filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "missing" }, values: ["x"] }] },
        })
      ).status,
    ).toBe(422);
    expect(
      (await agreement({ filters: { and: [{ type: "terms", scope: { entity: "suggestion", question: "label" }, values: ["x"] }] } }))
        .status,
    ).toBe(422);
    expect((await agreement("[1,")).status).toBe(422);
    expect((await d.f.request("POST", "/datasets/not-a-uuid/agreement", { body: {} })).status).toBe(422);
    expect((await d.f.request("POST", `/datasets/${MISSING}/agreement`, { body: {} })).status).toBe(404);
  });

  it("serves cached figures until a response of the dataset is written or deleted, on every write path", async () => {
    const labelOf = async () => {
      const res = await agreement();
      expect(res.status).toBe(200);
      const label = res.body.questions.find((q) => q.name === "label")!;
      return { records: label.records, responses: label.responses, lowest: label.lowest.map((l) => l.record_id) };
    };
    const version = async () =>
      Number(
        (
          await server.ctx.db
            .selectFrom("dataset_answer_versions")
            .select((eb) => eb.fn.max("version").as("v"))
            .where("dataset_id", "=", d.datasetId)
            .executeTakeFirst()
        )?.v ?? 0,
      );
    const before = await labelOf();
    expect(before).toEqual({ records: 3, responses: 6, lowest: [ids[1]] });
    const unchanged = await version();
    await labelOf(); // a read, and a final answer, leave the version (and the cached figures) as they are
    await d.f.ok("PUT", `/records/${ids[0]}/final-answer`, { values: { label: { value: "positive" } } });
    expect(await version()).toBe(unchanged);
    expect((await agreement()).body.lowest.length).toBeGreaterThan(0);

    // the draft of record 3 submitted through the bulk route: a fourth record with two answers, disagreeing
    const bulk = await d.f.ok<{ items: { item: { id: string } | null }[] }>(
      "POST",
      "/me/responses/bulk",
      { items: [{ record_id: ids[3], status: "submitted", values: { label: { value: "negative" }, rating: { value: 3 } } }] },
      200,
      d.annotator2.headers,
    );
    expect(await version()).not.toBe(unchanged);
    expect(await labelOf()).toEqual({ records: 4, responses: 8, lowest: expect.arrayContaining([ids[1], ids[3]]) });
    // changed through PUT /responses/{id}: record 3 agrees now
    const responseId = bulk.items[0]!.item!.id;
    await d.f.ok(
      "PUT",
      `/responses/${responseId}`,
      { status: "submitted", values: { label: { value: "neutral" }, rating: { value: 3 } } },
      200,
      d.annotator2.headers,
    );
    expect(await labelOf()).toEqual({ records: 4, responses: 8, lowest: [ids[1]] });
    // deleted: back to three records
    await d.f.ok("DELETE", `/responses/${responseId}`, undefined, 200, d.annotator2.headers);
    expect(await labelOf()).toEqual(before);
    // a new response through POST /records/{id}/responses, then the record deleted with its responses
    await d.f.ok(
      "POST",
      `/records/${ids[3]}/responses`,
      { status: "submitted", values: { label: { value: "positive" }, rating: { value: 3 } } },
      201,
      d.admin.headers,
    );
    expect((await labelOf()).records).toBe(4);
    await d.f.ok("DELETE", `/records/${ids[3]}`);
    expect(await labelOf()).toEqual(before);
    await d.f.ok("DELETE", `/records/${ids[0]}/final-answer`, undefined, 204);
  });
});
