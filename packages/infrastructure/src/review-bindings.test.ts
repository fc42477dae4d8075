import { describe, expect, it } from "vitest";
import {
  ClearFinalAnswerUseCase,
  GetAgreementUseCase,
  GetReviewItemUseCase,
  ListReviewRecordsUseCase,
  SubmitFinalAnswerUseCase,
} from "@tessera/domain";
import { createContainer } from "./container.js";
import { MemoryStorage, PRODUCT_STORAGE_KEY } from "./storage/local-storage.js";
import { json } from "./testing/fake-fetch.js";

const ITEM = {
  record: { id: "r1", external_id: null, fields: { text: "hi" }, metadata: null, status: "completed", inserted_at: "t0", updated_at: "t1" },
  responses: [
    {
      id: "s1",
      user_id: "u1",
      username: "ann",
      status: "submitted",
      values: { label: { value: "pos" } },
      inserted_at: "t0",
      updated_at: "t1",
    },
  ],
  suggestions: [{ question_id: "q1", question_name: "label", value: "neg", score: 0.5, agent: "m", type: "model" }],
  disagreements: ["label"],
  majority: { label: { value: "pos" } },
  validated: true,
  final_answer: { values: { label: { value: "neg" } }, reviewer: { id: "o", username: "owner" }, inserted_at: "t2", updated_at: "t3" },
};

function app(handler: (request: Request, body: unknown) => Response) {
  const storage = new MemoryStorage();
  storage.setItem(PRODUCT_STORAGE_KEY, JSON.stringify({ "auth.token": "jwt" }));
  const calls: { method: string; url: string; body: unknown }[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const text = await request.clone().text();
    const body = text ? (JSON.parse(text) as unknown) : undefined;
    calls.push({ method: request.method, url: request.url, body });
    return handler(request, body);
  }) as typeof fetch;
  return { c: createContainer({ storage, origin: "http://app.test", fetch: fetchFn }), calls };
}

describe("review repository in the composition root", () => {
  it("asks for agreement with the scope in the server's shape and maps the report", async () => {
    const { c, calls } = app(() =>
      json({
        dataset_id: "d",
        records: 2,
        responses: 4,
        annotators: [{ id: "u1", username: "ann", responses: 2 }],
        questions: [
          {
            name: "label",
            title: "Label",
            type: "label_selection",
            records: 2,
            responses: 4,
            primary_metric: "alpha_nominal",
            pair_metric: "cohen_kappa",
            figures: { alpha_nominal: { value: 0.5, records: 2, responses: 4 } },
            pairs: [{ user_ids: ["u1", "u2"], records: 2, figures: {} }],
            lowest: [{ record_id: "r1", agreement: 0, responses: 2, validated: false }],
          },
        ],
        lowest: [{ record_id: "r1", agreement: 0, questions: ["label"], validated: false }],
        review: { reviewed: 1, needing_review: 3 },
      }),
    );
    const filters = [{ type: "terms" as const, scope: { entity: "metadata" as const, metadata_property: "genre" }, values: ["news"] }];
    const report = await c.resolve(GetAgreementUseCase).execute("d", { question: "label", userIds: ["u1", "u2"], filters });
    expect(calls[0]).toEqual({
      method: "POST",
      url: "http://app.test/api/v1/datasets/d/agreement",
      body: { question: "label", user_ids: ["u1", "u2"], filters: { and: filters } },
    });
    expect(report.review).toEqual({ reviewed: 1, needingReview: 3 });
    expect(report.questions[0]).toMatchObject({
      primaryMetric: "alpha_nominal",
      pairs: [{ userIds: ["u1", "u2"] }],
      lowest: [{ recordId: "r1" }],
    });
  });

  it("lists review records, maps items, sends and clears final answers", async () => {
    const { c, calls } = app((request) =>
      request.method === "DELETE"
        ? new Response(null, { status: 204 })
        : request.url.includes("/review/records")
          ? json({ items: [ITEM], total: 1, review: { reviewed: 1, needing_review: 1 } })
          : json(request.method === "PUT" ? ITEM.final_answer : ITEM),
    );
    const list = await c
      .resolve(ListReviewRecordsUseCase)
      .execute("d", { disagreements: true, reviewed: false, offset: 0, limit: 1, question: null });
    expect(calls[0]).toMatchObject({
      url: "http://app.test/api/v1/datasets/d/review/records?offset=0&limit=1",
      body: { disagreements: true, reviewed: false },
    });
    expect(list.items[0]).toMatchObject({
      majority: { label: "pos" },
      responses: [{ username: "ann", values: { label: "pos" } }],
      finalAnswer: { values: { label: "neg" } },
    });
    const item = await c.resolve(SubmitFinalAnswerUseCase).execute("r1", { label: "neg" });
    expect(calls[1]).toMatchObject({
      method: "PUT",
      url: "http://app.test/api/v1/records/r1/final-answer",
      body: { values: { label: { value: "neg" } } },
    });
    expect(item.validated).toBe(true);
    expect((await c.resolve(GetReviewItemUseCase).execute("r1")).record.id).toBe("r1");
    await c.resolve(ClearFinalAnswerUseCase).execute("r1");
    expect(calls.map((x) => x.method)).toContain("DELETE");
  });

  it("refuses an empty final answer without a request", async () => {
    const { c, calls } = app(() => json({}));
    await expect(c.resolve(SubmitFinalAnswerUseCase).execute("r1", {})).rejects.toThrow(
      "A final answer needs at least one answered question",
    );
    expect(calls).toHaveLength(0);
  });
});
