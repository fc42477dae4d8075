import { describe, expect, it, vi } from "vitest";
import {
  GetDatasetCreationUseCase,
  GetFirstRecordFromHubUseCase,
  type DatasetCreation,
  type HubRepository,
  type HubSubsetInfo,
} from "@tessera/domain";
import { DatasetCreationViewModel, NEW_WORKSPACE } from "./dataset-creation-view-model";

const REVIEWS: HubSubsetInfo[] = [
  {
    name: "en",
    splits: ["train", "test"],
    features: {
      id: { _type: "Value", dtype: "string" },
      review: { _type: "Value", dtype: "string" },
      rating: { _type: "Value", dtype: "int32" },
      price: { _type: "Value", dtype: "float64" },
      "Helpful Votes": { _type: "Value", dtype: "int64" },
      verified: { _type: "Value", dtype: "bool" },
      sentiment: { _type: "ClassLabel", names: ["negative", "positive"] },
      "Topic Tags": { _type: "Sequence", feature: { _type: "ClassLabel", names: ["a", "b", "c", "d"] } },
      photo: { _type: "Image" },
      chat: [{ content: { _type: "Value", dtype: "string" }, role: { _type: "Value", dtype: "string" } }],
    },
  },
  { name: "de", splits: ["train"], features: { text: { _type: "Value", dtype: "string" } } },
];
const ROW = {
  id: "r-1",
  review: "Great kettle",
  rating: 5,
  price: 9.5,
  "Helpful Votes": 3,
  verified: true,
  sentiment: 1,
  "Topic Tags": [0],
  photo: { src: "http://hub/x.png" },
  chat: [{ role: "user", content: "hi" }],
};

function setup(options: { missing?: boolean; workspaces?: Array<{ id: string; name: string }>; createResult?: string | null } = {}) {
  const hub: HubRepository = {
    getDatasetInfo: vi.fn(async (repoId: string) => {
      if (options.missing) throw new Error("401");
      return { repoId, subsets: REVIEWS };
    }),
    getFirstRow: vi.fn(async () => ROW),
  };
  const create = { execute: vi.fn(async (_c: DatasetCreation) => (options.createResult === undefined ? "new-id" : options.createResult)) };
  const vm = new DatasetCreationViewModel("tessera/product-reviews", {
    getCreation: new GetDatasetCreationUseCase(hub),
    getFirstRow: new GetFirstRecordFromHubUseCase(hub),
    getWorkspaces: { execute: vi.fn(async () => options.workspaces ?? [{ id: "w1", name: "team" }]) },
    create,
  });
  return { vm, hub, create };
}

const texts = (messages: Array<{ text: string }>) => messages.map((m) => m.text);

describe("DatasetCreationViewModel", () => {
  it("says 'Dataset not found or available on Hugging Face' state for an unknown repo", async () => {
    const { vm } = setup({ missing: true });
    await vm.load();
    expect(vm.state).toBe("notFound");
  });

  it("proposes fields, questions and metadata from the column types, with subsets and splits", async () => {
    const { vm } = setup();
    await vm.load();
    expect(vm.state).toBe("ready");
    expect(vm.creation?.subsets.map((s) => s.name)).toEqual(["en", "de"]);
    const s = vm.subset!;
    expect(s.split).toBe("train");
    expect(s.fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ["id", "text", true],
      ["review", "text", false],
      ["verified", "no mapping", false],
      ["photo", "image", false],
      ["chat", "chat", false],
    ]);
    expect(s.metadata.map((m) => [m.name, m.column, m.type])).toEqual([
      ["rating", "rating", "integer"],
      ["price", "price", "float"],
      ["helpful_votes", "Helpful Votes", "integer"],
    ]);
    expect(s.questions.map((q) => [q.name, q.type, q.column])).toEqual([
      ["sentiment", "label_selection", "sentiment"],
      ["topic_tags", "multi_label_selection", "Topic Tags"],
    ]);
    expect(s.questions[0]!.options.map((o) => o.value)).toEqual(["negative", "positive"]);
    expect(vm.creation!.name).toBe("product-reviews");
    expect(vm.workspaceChoice).toBe("w1");
    vm.selectSubset("de");
    expect(vm.subset!.name).toBe("de");
    expect(vm.subset!.questions.map((q) => [q.name, q.type, q.required])).toEqual([["comment", "text", true]]);
  });

  it("maps columns to fields, metadata, suggestions and an external id", async () => {
    const { vm } = setup();
    await vm.load();
    vm.setColumnType("verified", "terms");
    vm.setColumnType("price", "text");
    vm.setColumnType("photo", "no mapping");
    vm.setExternalId("id");
    vm.setColumnType("id", "no mapping");
    vm.setQuestionColumn("topic_tags", null);
    expect(vm.creation!.mapping).toEqual({
      fields: [
        { source: "review", target: "review" },
        { source: "price", target: "price" },
        { source: "chat", target: "chat" },
      ],
      metadata: [
        { source: "rating", target: "rating" },
        { source: "Helpful Votes", target: "helpful_votes" },
        { source: "verified", target: "verified" },
      ],
      suggestions: [{ source: "sentiment", target: "sentiment" }],
      external_id: "id",
    });
    vm.setExternalId(null);
    expect(vm.creation!.mapping.external_id).toBeNull();
    // 'id' was the required field; another mapped field takes over so that the dataset can be published.
    expect(vm.subset!.fields.filter((f) => f.required).map((f) => f.name)).toEqual(["review"]);
    vm.setFieldRequired("review", false);
    expect(texts(vm.errors)).toEqual(["At least one field must be required."]);
    expect(vm.columnType("verified")).toBe("terms");
  });

  it("names metadata from columns by the server's rule without collisions, keeping the column as the source", async () => {
    const { vm } = setup();
    await vm.load();
    vm.setColumnType("verified", "terms");
    vm.setColumnType("Helpful Votes", "text");
    expect(vm.columnType("Helpful Votes")).toBe("text");
    vm.setColumnType("Helpful Votes", "float");
    expect(vm.columnType("Helpful Votes")).toBe("float");
    // A column whose clean name is taken gets a suffix.
    vm.setColumnType("review", "terms");
    vm.setColumnType("Topic Tags" as string, "terms");
    expect(vm.listedColumns).toContain("Helpful Votes");
    const names = vm.subset!.metadata.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^(?=.*[a-z0-9])[a-z0-9_-]+$/);
    expect(vm.creation!.mapping.metadata).toContainEqual({ source: "Helpful Votes", target: "helpful_votes" });
  });

  it("adds questions of every type with the default example options and server-safe names", async () => {
    const { vm } = setup();
    await vm.load();
    const added = ["label_selection", "multi_label_selection", "rating", "ranking", "text", "span"].map((t) => vm.addQuestion(t as never)!);
    expect(added.map((q) => q.name)).toEqual(["label_selection_2", "multi_label_selection_2", "rating_1", "ranking_1", "text_1", "span_1"]);
    expect(added.map((q) => q.title)).toEqual([
      "label selection 2",
      "multi label selection 2",
      "rating 1",
      "ranking 1",
      "text 1",
      "span 1",
    ]);
    expect(added.map((q) => q.options.map((o) => o.value))).toEqual([
      ["positive", "negative", "neutral"],
      ["news", "sports", "international", "politics"],
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      ["Option 1", "Option 2"],
      [],
      ["organisation", "person", "event"],
    ]);
    expect(added[5]!.settings).toMatchObject({ field: "id", allow_overlapping: true });
    expect(vm.errors).toEqual([]);
    expect(vm.canCreate).toBe(true);
  });

  it("reorders labels (drag and drop or up/down); the labels text follows", async () => {
    const { vm } = setup();
    await vm.load();
    const label = vm.addQuestion("label_selection")!;
    vm.setLabels(label.name, "a, b,c");
    vm.moveLabel(label.name, 2, 0);
    expect(label.options.map((o) => o.value)).toEqual(["c", "a", "b"]);
    expect(vm.labelsText(label)).toBe("c, a, b");
    vm.moveLabel(label.name, 0, 5);
    vm.moveLabel(label.name, 1, 1);
    expect(label.options.map((o) => o.value)).toEqual(["c", "a", "b"]);
    expect(vm.preview!.questions.find((q) => q.name === label.name)!.options.map((o) => o.value)).toEqual(["c", "a", "b"]);
  });

  it("titles added questions in the user's language when the page gives a translator", async () => {
    const { hub } = setup();
    const vm = new DatasetCreationViewModel(
      "tessera/product-reviews",
      {
        getCreation: new GetDatasetCreationUseCase(hub),
        getFirstRow: new GetFirstRecordFromHubUseCase(hub),
        getWorkspaces: { execute: async () => [] },
        create: { execute: async () => null },
      },
      (type, n) => `${type === "rating" ? "Bewertung" : type} ${n}`,
    );
    await vm.load();
    expect(vm.addQuestion("rating")!.title).toBe("Bewertung 1");
  });

  it("applies the creation validations of spec section 5", async () => {
    const { vm } = setup();
    await vm.load();
    const label = vm.addQuestion("label_selection")!;
    vm.setLabels(label.name, "only");
    expect(texts(vm.questionErrors(label))).toEqual(["At least two options are required"]);
    expect(texts(vm.errors)).toEqual(["Some questions are invalid"]);
    expect(vm.canCreate).toBe(false);
    vm.setLabels(label.name, "a, , b");
    expect(texts(vm.questionErrors(label))).toEqual(["Empty options are not allowed"]);
    vm.setLabels(label.name, "a, b");
    expect(vm.questionErrors(label)).toEqual([]);
    const rating = vm.addQuestion("rating")!;
    vm.setRatingRange(rating.name, 4, 4);
    expect(texts(vm.questionErrors(rating))).toEqual(["At least two options are required"]);
    vm.removeQuestion(rating.name);
    const span = vm.addQuestion("span")!;
    for (const c of ["id", "review"]) vm.setColumnType(c, "no mapping");
    expect(texts(vm.questionErrors(span))).toEqual(["A span question needs a text field to annotate"]);
    vm.removeQuestion(span.name);
    for (const q of [...vm.subset!.questions]) vm.setQuestionRequired(q.name, false);
    expect(texts(vm.errors)).toEqual(["At least one required question is needed."]);
    for (const q of [...vm.subset!.questions]) vm.removeQuestion(q.name);
    expect(texts(vm.errors)).toEqual(["At least one question is required."]);
    const only = vm.addQuestion("text")!;
    expect(only.required).toBe(true);
    vm.setQuestionTitle(only.name, " ");
    expect(texts(vm.questionErrors(only))).toEqual(["This field is required."]);
  });

  it("previews the first row without the external id column, with a fake suggestion for multi-label with more than 3 options", async () => {
    const { vm } = setup();
    await vm.load();
    expect(vm.preview!.fields.map((f) => [f.name, f.content])).toEqual([
      ["id", ""],
      ["review", "Great kettle"],
      ["photo", "http://hub/x.png"],
      ["chat", [{ role: "user", content: "hi" }]],
    ]);
    vm.setExternalId(null);
    await vm.loadFirstRow();
    expect(vm.preview!.fields[0]!.content).toBe("r-1");
    const multi = vm.preview!.questions.find((q) => q.name === "topic_tags")!;
    // Mapped to its column: the import's suggestion (class indexes as names), not the fake one.
    expect(multi.suggestion?.agent).toBeNull();
    expect(multi.answer.value).toEqual(["a"]);
    vm.setQuestionColumn("topic_tags", null);
    const unmapped = vm.preview!.questions.find((q) => q.name === "topic_tags")!;
    expect(unmapped.suggestion?.agent).toBe("system");
    expect(unmapped.answer.value).toEqual(["a", "b"]);
  });

  it("previews the suggestions of columns mapped to questions, converted as the import converts them", async () => {
    const { vm } = setup();
    await vm.load();
    const label = vm.preview!.questions.find((q) => q.name === "sentiment")!;
    expect(label.suggestion?.suggestedAnswer).toBe("positive");
    expect(label.answer.value).toBe("positive");
    const rating = vm.addQuestion("rating")!;
    vm.setQuestionColumn(rating.name, "rating");
    const text = vm.addQuestion("text")!;
    vm.setQuestionColumn(text.name, "review");
    expect(vm.previewSuggestions.map((s) => [s.questionId, s.value])).toEqual([
      ["q-sentiment", "positive"],
      ["q-topic_tags", ["a"]],
      [`q-${rating.name}`, 5],
      [`q-${text.name}`, "Great kettle"],
    ]);
    expect(vm.preview!.questions.find((q) => q.name === rating.name)!.answer.value).toBe(5);
    vm.setQuestionColumn("sentiment", null);
    expect(vm.preview!.questions.find((q) => q.name === "sentiment")!.suggestion).toBeUndefined();
  });

  it("creates in a chosen or a new workspace and reports a failed creation", async () => {
    const ok = setup({ workspaces: [] });
    await ok.vm.load();
    expect(ok.vm.workspaceChoice).toBe(NEW_WORKSPACE);
    expect(ok.vm.canCreate).toBe(false);
    ok.vm.setNewWorkspaceName(" fresh ");
    ok.vm.setName("reviews");
    expect(await ok.vm.create()).toBe("new-id");
    const sent = ok.create.execute.mock.calls[0]![0];
    expect([sent.name, sent.workspace]).toEqual(["reviews", { name: "fresh" }]);

    const failing = setup({ createResult: null });
    await failing.vm.load();
    failing.vm.setName("  ");
    expect(failing.vm.canCreate).toBe(false);
    failing.vm.setName("reviews");
    expect(await failing.vm.create()).toBeNull();
    expect(failing.vm.failed).toBe(true);
    expect(failing.create.execute.mock.calls[0]![0].workspace).toEqual({ id: "w1", name: "team" });
  });
});
