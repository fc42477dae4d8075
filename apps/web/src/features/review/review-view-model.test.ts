import { describe, expect, it } from "vitest";
import { Field, Question, type DatasetSettings, type ReviewItem, type ReviewListQuery } from "@tessera/domain";
import { ReviewViewModel, ALL_RECORDS, type ReviewUseCases } from "./review-view-model";

const item = (id: string, finalAnswer: ReviewItem["finalAnswer"] = null): ReviewItem => ({
  record: {
    id,
    externalId: null,
    fields: { text: "hello" },
    metadata: null,
    status: "completed",
    insertedAt: "2026-01-01T00:00:00",
    updatedAt: "2026-01-01T00:00:00",
  },
  responses: [],
  suggestions: [],
  disagreements: ["label"],
  majority: { label: "pos" },
  finalAnswer,
  validated: finalAnswer !== null,
});

const settings = {
  questions: [
    new Question({
      id: "q1",
      name: "label",
      datasetId: "d",
      title: "Label",
      required: true,
      settings: { type: "label_selection", options: [{ value: "pos" }, { value: "neg" }] },
    }),
    new Question({ id: "q2", name: "note", datasetId: "d", title: "Note", required: false, settings: { type: "text" } }),
  ],
  fields: [new Field({ id: "f1", name: "text", title: "Text", required: true, settings: { type: "text" }, datasetId: "d" } as never)],
} as unknown as DatasetSettings;

function fakes(items: ReviewItem[]) {
  const queries: ReviewListQuery[] = [];
  const sent: { id: string; values: unknown }[] = [];
  let current = [...items];
  const useCases = {
    list: {
      execute: async (_d: string, q: ReviewListQuery) => {
        queries.push(q);
        const page = current.slice(q.offset, q.offset + q.limit);
        return { items: page, total: current.length, review: { reviewed: items.length - current.length, needingReview: items.length } };
      },
    },
    get: { execute: async (id: string) => items.find((i) => i.record.id === id)! },
    submit: {
      execute: async (id: string, values: unknown) => {
        sent.push({ id, values });
        current = current.filter((i) => i.record.id !== id);
        return item(id, { values: values as never, reviewer: null, insertedAt: "t", updatedAt: "t" });
      },
    },
    clear: { execute: async (id: string) => item(id) },
  } as unknown as ReviewUseCases;
  return { useCases, queries, sent };
}

describe("ReviewViewModel", () => {
  it("asks for disagreements not yet reviewed and prefills the form with the majority", async () => {
    const { useCases, queries } = fakes([item("r1"), item("r2")]);
    const vm = new ReviewViewModel("d", useCases);
    vm.setSettings(settings);
    await vm.load();
    expect(queries[0]).toEqual({ question: null, disagreements: true, reviewed: false, offset: 0, limit: 1 });
    expect(vm.record?.question("label")?.answer.value).toBe("pos");
    expect(vm.total).toBe(2);
    expect(vm.hasNext).toBe(true);
  });

  it("prefers an existing final answer to the majority", async () => {
    const { useCases } = fakes([item("r1", { values: { label: "neg" }, reviewer: null, insertedAt: "t", updatedAt: "t" })]);
    const vm = new ReviewViewModel("d", useCases, { show: "all" });
    vm.setSettings(settings);
    await vm.load();
    expect(vm.record?.question("label")?.answer.value).toBe("neg");
  });

  it("submits the form's valid answers as the final answer; the next record to review takes its place", async () => {
    const { useCases, sent } = fakes([item("r1"), item("r2")]);
    const vm = new ReviewViewModel("d", useCases);
    vm.setSettings(settings);
    await vm.load();
    vm.form.set(vm.record!, vm.record!.question("label")!, "neg");
    await vm.submit();
    expect(sent).toEqual([{ id: "r1", values: { label: "neg" } }]);
    expect(vm.outcome).toBe("saved");
    expect(vm.item?.record.id).toBe("r2");
    expect(vm.progress).toEqual({ reviewed: 1, needingReview: 2 });
  });

  it("filters on a question or lists every answered record; opens a pinned record first", async () => {
    const { useCases, queries } = fakes([item("r1"), item("r2")]);
    const vm = new ReviewViewModel("d", useCases, { record: "r2" });
    vm.setSettings(settings);
    await vm.load();
    expect(vm.item?.record.id).toBe("r2");
    expect(vm.hasNext).toBe(false);
    vm.setQuestion(ALL_RECORDS);
    await new Promise((r) => setTimeout(r, 0));
    expect(queries.at(-1)).toMatchObject({ disagreements: false, question: null });
    vm.setQuestion("label");
    await new Promise((r) => setTimeout(r, 0));
    expect(queries.at(-1)).toMatchObject({ disagreements: true, question: "label" });
  });

  it("reviews only the records matching the annotation page's metadata filters, until they are dropped", async () => {
    const { useCases, queries } = fakes([item("r1"), item("r2")]);
    const genre = { type: "terms" as const, scope: { entity: "metadata" as const, metadata_property: "genre" }, values: ["news"] };
    const vm = new ReviewViewModel("d", useCases, { metadataFilters: [genre] });
    vm.setSettings(settings);
    await vm.load();
    expect(queries.at(-1)).toMatchObject({ filters: [genre], disagreements: true });
    vm.next();
    vm.dropMetadata();
    await new Promise((r) => setTimeout(r, 0));
    expect(vm.metadataFilters).toEqual([]);
    expect(queries.at(-1)).toMatchObject({ offset: 0 });
    expect(queries.at(-1)).not.toHaveProperty("filters");
  });
});
