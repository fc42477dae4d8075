import { describe, expect, it, vi } from "vitest";
import { SubmitRecordUseCase } from "./submit-record.js";
import { SaveDraftUseCase } from "./save-draft.js";
import { DiscardRecordUseCase } from "./discard-record.js";
import { ClearRecordUseCase } from "./clear-record.js";
import { BulkAnnotateUseCase } from "./bulk-annotate.js";
import { GetAgentsUseCase } from "./get-agents.js";
import { GetRecordsByCriteriaUseCase } from "./get-records-by-criteria.js";
import { DatasetRecord } from "../../entities/record.js";
import { RecordCriteria } from "../../criteria/record-criteria.js";
import { ValidationError } from "../../errors/validation-error.js";
import { FakeRecords, FakeResponses, fakeFields, fakeQuestions } from "../../testing/fake-repositories.js";
import { FIELDS, QUESTIONS, recordProps, response } from "../../testing/fixtures.js";

const all = Object.values(QUESTIONS);
function record(id = "r1", saved: ReturnType<typeof response> | null = null) {
  const r = new DatasetRecord(recordProps(id, { response: saved }), all, FIELDS, 1);
  r.initialize();
  return r;
}

describe("submit, draft, discard: create or update (spec section 4)", () => {
  it("creates the response when the record has none, then updates it; the baseline is reset", async () => {
    const responses = new FakeResponses();
    const submit = new SubmitRecordUseCase(responses);
    const r = record();
    r.question("label")?.answer.set("positive");
    const first = await submit.execute(r);
    expect(responses.calls[0]).toEqual({
      op: "create",
      id: "r1",
      payload: { status: "submitted", values: { label: "positive", span: [] } },
    });
    expect(r.answer).toBe(first);
    expect(r.isSubmitted).toBe(true);
    expect(r.isModified).toBe(false);
    r.question("label")?.answer.set("negative");
    await submit.execute(r);
    expect(responses.calls[1]).toMatchObject({ op: "update", id: first.id });
  });

  it("refuses an incomplete submission with 'To submit complete required responses'", async () => {
    const responses = new FakeResponses();
    const error = await new SubmitRecordUseCase(responses).execute(record()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).message).toBe("To submit complete required responses");
    expect((error as ValidationError).detail.key).toBe("validations.incompleteRecord");
    expect(responses.calls).toHaveLength(0);
  });

  it("drafts and discards carry partial answers", async () => {
    const responses = new FakeResponses();
    const r = record();
    r.question("ranking")?.answer.set([{ value: "x", rank: 1 }]);
    await new SaveDraftUseCase(responses).execute(r);
    expect(responses.calls[0]?.payload).toEqual({ status: "draft", values: { span: [], ranking: [{ value: "x", rank: 1 }] } });
    expect(r.isDraft).toBe(true);
    await new DiscardRecordUseCase(responses).execute(r);
    expect(responses.calls[1]).toMatchObject({ op: "update", payload: { status: "discarded" } });
    expect(r.isDiscarded).toBe(true);
  });

  it("clear deletes the response and returns the record to pending", async () => {
    const responses = new FakeResponses();
    const r = record("r1", response("submitted", { label: "positive" }, "resp-9"));
    await new ClearRecordUseCase(responses).execute(r);
    expect(responses.calls).toEqual([{ op: "delete", id: "resp-9" }]);
    expect(r.isPending).toBe(true);
    expect(r.question("label")?.answer.value).toBeNull();
    const fresh = record("r2");
    await new ClearRecordUseCase(responses).execute(fresh);
    expect(responses.calls).toHaveLength(1);
  });

  it("a failed save keeps the record as it was", async () => {
    const responses = new FakeResponses();
    responses.create = async () => {
      throw new Error("down");
    };
    const r = record();
    r.question("label")?.answer.set("positive");
    await expect(new SubmitRecordUseCase(responses).execute(r)).rejects.toThrow("down");
    expect(r.isPending).toBe(true);
    expect(r.isModified).toBe(true);
  });
});

describe("BulkAnnotateUseCase", () => {
  it("sends chunks of 10 with the chosen answers and reports progress by chunk", async () => {
    const responses = new FakeResponses();
    const records = new FakeRecords([]);
    const uc = new BulkAnnotateUseCase(responses, new GetRecordsByCriteriaUseCase(records, fakeQuestions(), fakeFields()));
    const selection = Array.from({ length: 25 }, (_, i) => record(`r${i}`));
    const form = record("form");
    form.question("label")?.answer.set("negative");
    const progress: number[] = [];
    const result = await uc.execute(
      { criteria: new RecordCriteria({ datasetId: "d1" }), answers: form, selection, status: "submitted" },
      (p) => progress.push(p),
    );
    const bulkCalls = responses.calls.filter((c) => c.op === "bulk");
    expect(bulkCalls.map((c) => (c.payload as unknown[]).length)).toEqual([10, 10, 5]);
    expect((bulkCalls[0]?.payload as Array<{ values: unknown }>)[0]?.values).toEqual({ label: "negative" });
    expect(progress).toEqual([33, 67, 100]);
    expect(result.allSucceeded).toBe(true);
    expect(result.message).toBeNull();
    expect(selection[0]?.isSubmitted).toBe(true);
    expect(selection[0]?.question("label")?.answer.value).toBe("negative");
    expect(records.requests).toHaveLength(0);
  });

  it("with 'all' first fetches up to 1000 records from the first page; failures give 'Some records failed to annotate'", async () => {
    const responses = new FakeResponses();
    responses.failIds.add("r2");
    const records = FakeRecords.withCount(12);
    const uc = new BulkAnnotateUseCase(responses, new GetRecordsByCriteriaUseCase(records, fakeQuestions(), fakeFields()));
    const form = record("form");
    const result = await uc.execute({
      criteria: new RecordCriteria({ datasetId: "d1" }),
      answers: form,
      selection: "all",
      status: "discarded",
    });
    expect(records.requests[0]).toMatchObject({ offset: 0, limit: 1000 });
    expect(result.results).toHaveLength(12);
    expect(result.results.find((r) => r.recordId === "r2")).toEqual({ recordId: "r2", success: false, error: "invalid" });
    expect(result.allSucceeded).toBe(false);
    expect(result.message?.text).toBe("Some records failed to annotate");
  });
});

describe("BulkAnnotateUseCase and span questions (spans are per text)", () => {
  const spanSuggestion = (id: string, start: number, end: number) => ({
    id: `s-${id}`,
    questionId: "q-span",
    value: [{ start, end, label: "PER" }],
    score: null,
    agent: "ner",
  });
  const bulkRecord = (id: string, suggested: boolean) => {
    const r = new DatasetRecord(
      recordProps(id, {
        suggestions: suggested
          ? [spanSuggestion(id, 0, 4), { id: `l-${id}`, questionId: "q-label", value: "positive", score: 0.9, agent: "m" }]
          : [],
      }),
      all,
      FIELDS,
      1,
    );
    r.initialize(true);
    return r;
  };

  it("never copies the form's spans; each record sends its own spans (from its suggestions or edited) or none", async () => {
    const responses = new FakeResponses();
    const uc = new BulkAnnotateUseCase(responses, new GetRecordsByCriteriaUseCase(new FakeRecords([]), fakeQuestions(), fakeFields()));
    const first = bulkRecord("r1", true);
    const second = bulkRecord("r2", false);
    const third = bulkRecord("r3", true);
    third.question("span")?.answer.set([{ start: 5, end: 7, label: "ORG" }]);
    // in bulk only span suggestions prefill
    expect([first.question("label")?.answer.value, first.question("span")?.answer.value]).toEqual([
      null,
      [{ start: 0, end: 4, label: "PER" }],
    ]);
    first.question("label")?.answer.set("negative");
    await uc.execute({
      criteria: new RecordCriteria({ datasetId: "d1" }),
      answers: first,
      selection: [first, second, third],
      status: "submitted",
    });
    const items = responses.calls.find((c) => c.op === "bulk")?.payload as Array<{ recordId: string; values: Record<string, unknown> }>;
    expect(items.map((i) => [i.recordId, i.values])).toEqual([
      ["r1", { label: "negative", span: [{ start: 0, end: 4, label: "PER" }] }],
      ["r2", { label: "negative" }],
      ["r3", { label: "negative", span: [{ start: 5, end: 7, label: "ORG" }] }],
    ]);
  });

  it("with 'all', fetched records use their own span suggestions, and records on screen their edited spans", async () => {
    const responses = new FakeResponses();
    const store = [
      recordProps("r1", { suggestions: [spanSuggestion("r1", 0, 4)] }),
      recordProps("r2", { suggestions: [spanSuggestion("r2", 8, 10)] }),
      recordProps("r3"),
    ];
    const uc = new BulkAnnotateUseCase(responses, new GetRecordsByCriteriaUseCase(new FakeRecords(store), fakeQuestions(), fakeFields()));
    const criteria = new RecordCriteria({ datasetId: "d1" });
    criteria.page.mode = "bulk";
    const shown = bulkRecord("r1", true);
    shown.question("span")?.answer.set([]);
    shown.question("label")?.answer.set("positive");
    await uc.execute({ criteria, answers: shown, selection: "all", status: "draft", onScreen: [shown] });
    const items = responses.calls.find((c) => c.op === "bulk")?.payload as Array<{ recordId: string; values: Record<string, unknown> }>;
    expect(items.map((i) => [i.recordId, i.values])).toEqual([
      ["r1", { label: "positive" }],
      ["r2", { label: "positive", span: [{ start: 8, end: 10, label: "PER" }] }],
      ["r3", { label: "positive" }],
    ]);
  });
});

describe("GetAgentsUseCase", () => {
  it("returns the agents per question", async () => {
    const getAgents = vi.fn(async () => [{ questionId: "q", questionName: "label", agents: ["gpt"] }]);
    expect(await new GetAgentsUseCase({ getAgents }).execute("d1")).toEqual([{ questionId: "q", questionName: "label", agents: ["gpt"] }]);
    expect(getAgents).toHaveBeenCalledWith("d1");
  });
});
