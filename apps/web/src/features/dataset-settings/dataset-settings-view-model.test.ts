import { describe, expect, it, vi } from "vitest";
import {
  Dataset,
  DeleteDatasetUseCase,
  Field,
  MetadataProperty,
  Question,
  UpdateDatasetSettingUseCase,
  UpdateFieldSettingUseCase,
  UpdateMetadataSettingUseCase,
  UpdateQuestionSettingUseCase,
  UpdateVectorSettingUseCase,
  Vector,
  type DatasetManagementRepository,
  type DatasetSettings,
  type FieldRepository,
  type MetadataRepository,
  type QuestionRepository,
  type VectorRepository,
} from "@tessera/domain";
import { DatasetSettingsViewModel } from "./dataset-settings-view-model";

function settings(): DatasetSettings {
  const dataset = new Dataset({
    id: "d1",
    name: "reviews",
    guidelines: "Read twice",
    status: "ready",
    workspaceId: "w1",
    workspaceName: "team",
    allowExtraMetadata: false,
    distribution: { strategy: "overlap", minSubmitted: 1 },
    metadata: null,
    createdAt: "2026-01-01",
    updatedAt: "2026-01-01T00:00:00",
    lastActivityAt: "2026-01-01",
  });
  const label = new Question({
    id: "q1",
    name: "label",
    datasetId: "d1",
    title: "Label",
    description: "Pick one",
    required: true,
    settings: { type: "label_selection", options: ["a", "b", "c", "d"].map((v) => ({ value: v, text: v.toUpperCase() })) },
  });
  const span = new Question({
    id: "q2",
    name: "span",
    datasetId: "d1",
    title: "Entities",
    description: null,
    required: false,
    settings: {
      type: "span",
      field: "text",
      options: [
        { value: "PER", text: "Person" },
        { value: "ORG", text: "Org" },
      ],
    },
  });
  const field = new Field({
    id: "f1",
    name: "text",
    title: "Text",
    required: true,
    datasetId: "d1",
    settings: { type: "text", use_markdown: false },
  });
  const metadata = new MetadataProperty({
    id: "m1",
    name: "price",
    title: "Price",
    settings: { type: "float" },
    visibleForAnnotators: true,
    datasetId: "d1",
  });
  const vector = new Vector({ id: "v1", name: "emb", title: "Embedding", dimensions: 3, datasetId: "d1" });
  return { dataset, questions: [label, span], fields: [field], metadata: [metadata], vectors: [vector], isFull: true };
}

function setup(options: { responses?: boolean; failing?: boolean } = {}) {
  const s = settings();
  const fail = () => {
    throw new Error("422");
  };
  const datasets = {
    update: vi.fn(async () => (options.failing ? fail() : { updatedAt: "2026-02-02T00:00:00" })),
    delete: vi.fn(async () => undefined),
  };
  const updated = vi.fn(async () => (options.failing ? fail() : { updatedAt: "2026-03-03T00:00:00" }));
  const questions = { update: updated } as unknown as QuestionRepository;
  const fields = { update: updated } as unknown as FieldRepository;
  const metadata = { update: updated } as unknown as MetadataRepository;
  const vectors = { update: updated } as unknown as VectorRepository;
  const hasResponses = { execute: vi.fn(async () => options.responses ?? false) };
  const management = datasets as unknown as DatasetManagementRepository;
  const vm = new DatasetSettingsViewModel("d1", {
    load: { execute: vi.fn(async () => s) },
    updateDataset: new UpdateDatasetSettingUseCase(management),
    updateQuestion: new UpdateQuestionSettingUseCase(questions),
    updateField: new UpdateFieldSettingUseCase(fields),
    updateMetadata: new UpdateMetadataSettingUseCase(metadata),
    updateVector: new UpdateVectorSettingUseCase(vectors),
    deleteDataset: new DeleteDatasetUseCase(management),
    hasResponses,
  });
  return { vm, s, datasets, updated, hasResponses };
}

describe("DatasetSettingsViewModel", () => {
  it("sends annotators away with a not-allowed state and loads nothing", async () => {
    const { vm } = setup();
    await vm.load({ isAdminOrOwner: false });
    expect(vm.state).toBe("notAllowed");
    expect(vm.settings).toBeNull();
  });

  it("requires guidelines, trims them on save and takes the returned updated_at as the baseline", async () => {
    const { vm, s, datasets } = setup();
    await vm.load({ isAdminOrOwner: true });
    vm.setGuidelines("   ");
    expect(vm.datasetErrors("guidelines").map((m) => m.text)).toEqual(["This field is required."]);
    expect(vm.canUpdateDataset("guidelines")).toBe(false);
    vm.setGuidelines("  Be kind  ");
    expect(vm.canUpdateDataset("guidelines")).toBe(true);
    expect(await vm.saveDataset("guidelines")).toBe(true);
    expect(datasets.update).toHaveBeenCalledWith("d1", { guidelines: "Be kind" });
    expect(s.dataset.guidelines).toBe("Be kind");
    expect(s.dataset.updatedAt).toBe("2026-02-02T00:00:00");
    expect(s.dataset.isModified("guidelines")).toBe(false);
    expect(vm.outcome("dataset:guidelines")).toBe("saved");
  });

  it("reverts a failed save silently to the last saved value", async () => {
    const { vm, s } = setup({ failing: true });
    await vm.load({ isAdminOrOwner: true });
    vm.setGuidelines("New text");
    expect(await vm.saveDataset("guidelines")).toBe(false);
    expect(s.dataset.guidelines).toBe("Read twice");
    expect(s.dataset.updatedAt).toBe("2026-01-01T00:00:00");
    expect(vm.outcome("dataset:guidelines")).toBe("reverted");
    vm.setTitle(s.fields[0]!, "Body");
    expect(await vm.save(s.fields[0]!)).toBe(false);
    expect(s.fields[0]!.title).toBe("Text");
  });

  it("validates min submitted (at least 1) and locks distribution once responses exist, with the business message", async () => {
    const { vm, s } = setup();
    await vm.load({ isAdminOrOwner: true });
    vm.setMinSubmitted(0);
    expect(vm.datasetErrors("distribution").map((m) => m.text)).toEqual(["This field is required."]);
    expect(vm.canUpdateDataset("distribution")).toBe(false);
    vm.setMinSubmitted(2);
    expect(vm.canUpdateDataset("distribution")).toBe(true);
    expect(vm.distributionMessage).toBeNull();

    const locked = setup({ responses: true });
    await locked.vm.load({ isAdminOrOwner: true });
    expect(locked.vm.distributionMessage?.text).toBe("Distribution settings can't be modified for a dataset containing user responses");
    locked.vm.setMinSubmitted(3);
    expect(locked.s.dataset.distribution.minSubmitted).toBe(1);
    expect(locked.vm.canUpdateDataset("distribution")).toBe(false);
    expect(s.dataset.distribution.minSubmitted).toBe(2);
  });

  it("locks distribution after the server refuses a change because responses appeared meanwhile", async () => {
    const { vm, s, hasResponses } = setup({ failing: true });
    await vm.load({ isAdminOrOwner: true });
    hasResponses.execute.mockResolvedValue(true);
    vm.setMinSubmitted(2);
    expect(await vm.saveDataset("distribution")).toBe(false);
    expect(s.dataset.distribution.minSubmitted).toBe(1);
    expect(vm.distributionLocked).toBe(true);
  });

  it("saves allow extra metadata at once", async () => {
    const { vm, datasets, s } = setup();
    await vm.load({ isAdminOrOwner: true });
    expect(await vm.toggleAllowExtraMetadata(true)).toBe(true);
    expect(datasets.update).toHaveBeenCalledWith("d1", { allowExtraMetadata: true });
    expect(s.dataset.allowExtraMetadata).toBe(true);
  });

  it("limits field, metadata and vector titles to 500 and question titles to 200, requires a question title", async () => {
    const { vm, s } = setup();
    await vm.load({ isAdminOrOwner: true });
    const [label] = s.questions;
    vm.setTitle(s.fields[0]!, "x".repeat(501));
    expect(vm.errors(s.fields[0]!).title.map((m) => m.text)).toEqual(["This must be less than 500."]);
    expect(vm.canUpdate(s.fields[0]!)).toBe(false);
    vm.setTitle(s.metadata[0]!, "x".repeat(501));
    expect(vm.errors(s.metadata[0]!).title.map((m) => m.text)).toEqual(["This must be less than 500."]);
    vm.setTitle(s.vectors[0]!, "x".repeat(501));
    expect(vm.errors(s.vectors[0]!).title.map((m) => m.text)).toEqual(["This must be less than 500."]);
    vm.setTitle(label!, "");
    expect(vm.errors(label!).title.map((m) => m.text)).toEqual(["This field is required."]);
    vm.setTitle(label!, "y".repeat(201));
    expect(vm.errors(label!).title.map((m) => m.text)).toEqual(["This must be less than 200."]);
    vm.setDescription(label!, "z".repeat(501));
    expect(vm.errors(label!).description.map((m) => m.text)).toEqual(["This must be less than 500."]);
    vm.cancel(label!);
    expect([label!.title, label!.description]).toEqual(["Label", "Pick one"]);
  });

  it("sends a blank question description as null, with reordered labels and visible labels", async () => {
    const { vm, s, updated } = setup();
    await vm.load({ isAdminOrOwner: true });
    const label = s.questions[0]!;
    vm.setDescription(label, "   ");
    vm.moveOption(label, 0, 1);
    vm.setOptionText(label, 3, "Delta");
    expect(vm.hasVisibleOptions(label)).toBe(true);
    vm.setVisibleOptions(label, 99);
    expect(label.settings.visible_options).toBe(4);
    vm.setVisibleOptions(label, 1);
    expect(label.settings.visible_options).toBe(3);
    expect(await vm.save(label)).toBe(true);
    expect(updated).toHaveBeenCalledWith(
      "q1",
      expect.objectContaining({
        title: "Label",
        description: null,
        settings: expect.objectContaining({
          visible_options: 3,
          options: [
            { value: "b", text: "B" },
            { value: "a", text: "A" },
            { value: "c", text: "C" },
            { value: "d", text: "Delta" },
          ],
        }),
      }),
    );
    expect(label.updatedAt).toBe("2026-03-03T00:00:00");
    expect(vm.isModified(label)).toBe(false);
    vm.setOptionText(label, 0, " ");
    expect(vm.errors(label).options.map((m) => m.text)).toEqual(["Empty options are not allowed"]);
  });

  it("reorders labels by drag and drop (any distance) and ignores moves out of range", async () => {
    const { vm, s } = setup();
    await vm.load({ isAdminOrOwner: true });
    const label = s.questions[0]!;
    const order = () => (label.settings.options ?? []).map((o) => o.value).join("");
    vm.moveOptionTo(label, 3, 0);
    expect(order()).toBe("dabc");
    vm.moveOptionTo(label, 0, 2);
    expect(order()).toBe("abdc");
    vm.moveOptionTo(label, 0, 9);
    vm.moveOption(label, 0, -1);
    expect(order()).toBe("abdc");
    expect(vm.isModified(label)).toBe(true);
    vm.moveOptionTo(label, 2, 3);
    expect(order()).toBe("abcd");
  });

  it("sends edited span colours with the options", async () => {
    const { vm, s, updated } = setup();
    await vm.load({ isAdminOrOwner: true });
    const span = s.questions[1]!;
    vm.setOptionColor(span, 0, "hsl(120, 80%, 80%)");
    expect(await vm.save(span)).toBe(true);
    const sent = (updated.mock.calls as unknown as Array<[string, { settings: { options: Array<{ color?: string }> } }]>).at(-1)![1];
    expect(sent.settings.options[0]!.color).toBe("hsl(120, 80%, 80%)");
  });

  it("accepts only HSL span colours", async () => {
    const { vm, s } = setup();
    await vm.load({ isAdminOrOwner: true });
    const span = s.questions[1]!;
    expect(vm.hasVisibleOptions(span)).toBe(false);
    vm.setOptionColor(span, 0, "#ff0000");
    expect(vm.errors(span).options.map((m) => m.text)).toEqual(["The value color must be HSL for now."]);
    expect(vm.canUpdate(span)).toBe(false);
    vm.setOptionColor(span, 0, "hsl(120, 80%, 80%)");
    expect(vm.errors(span).options).toEqual([]);
    expect(vm.canUpdate(span)).toBe(true);
  });

  it("saves metadata visibility and vector titles", async () => {
    const { vm, s, updated } = setup();
    await vm.load({ isAdminOrOwner: true });
    vm.setVisibleForAnnotators(s.metadata[0]!, false);
    expect(await vm.save(s.metadata[0]!)).toBe(true);
    expect(updated).toHaveBeenLastCalledWith("m1", { title: "Price", visibleForAnnotators: false });
    vm.setTitle(s.vectors[0]!, "Sentence embedding");
    expect(await vm.save(s.vectors[0]!)).toBe(true);
    expect(updated).toHaveBeenLastCalledWith("v1", { title: "Sentence embedding" });
  });

  it("deletes the dataset after confirmation", async () => {
    const { vm, datasets } = setup();
    await vm.load({ isAdminOrOwner: true });
    vm.askDelete();
    expect(vm.confirmingDelete).toBe(true);
    vm.cancelDelete();
    expect(datasets.delete).not.toHaveBeenCalled();
    vm.askDelete();
    expect(await vm.confirmDelete()).toBe(true);
    expect(datasets.delete).toHaveBeenCalledWith("d1");
    expect(vm.deleted).toBe(true);
  });
});
