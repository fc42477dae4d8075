import { describe, expect, it, vi } from "vitest";
import { UpdateDatasetSettingUseCase } from "./update-dataset-setting.js";
import { UpdateFieldSettingUseCase } from "./update-field-setting.js";
import { UpdateMetadataSettingUseCase } from "./update-metadata-setting.js";
import { UpdateQuestionSettingUseCase } from "./update-question-setting.js";
import { UpdateVectorSettingUseCase } from "./update-vector-setting.js";
import { Dataset, type DatasetProps } from "../../entities/dataset.js";
import { Question } from "../../entities/question.js";
import { Field } from "../../entities/field.js";
import { MetadataProperty, visibleMetadataFor } from "../../entities/metadata.js";
import { Vector } from "../../entities/vector.js";
import { ValidationError } from "../../errors/validation-error.js";
import { FIELDS, QUESTIONS } from "../../testing/fixtures.js";
import type { DatasetManagementRepository } from "../../ports/dataset-repository.js";
import type { FieldRepository, MetadataRepository, QuestionRepository, VectorRepository } from "../../ports/settings-repositories.js";

const props: DatasetProps = {
  id: "d1",
  name: "n",
  guidelines: "old",
  status: "ready",
  workspaceId: "w",
  workspaceName: "ws",
  allowExtraMetadata: false,
  distribution: { strategy: "overlap", minSubmitted: 1 },
  metadata: null,
  createdAt: "c",
  updatedAt: "u0",
  lastActivityAt: "l",
};
const datasets = (update: DatasetManagementRepository["update"]) => ({ update }) as unknown as DatasetManagementRepository;

describe("UpdateDatasetSettingUseCase", () => {
  it("trims guidelines on save and takes the returned updated_at as baseline", async () => {
    const update = vi.fn(async () => ({ updatedAt: "u1" }));
    const d = new Dataset(props);
    d.guidelines = "  new  ";
    expect(d.isModified("guidelines")).toBe(true);
    expect(await new UpdateDatasetSettingUseCase(datasets(update)).execute(d, "guidelines")).toBe(true);
    expect(update).toHaveBeenCalledWith("d1", { guidelines: "new" });
    expect([d.guidelines, d.updatedAt, d.isModified("guidelines")]).toEqual(["new", "u1", false]);
  });
  it("reverts silently on a failed save", async () => {
    const d = new Dataset(props);
    d.distribution.minSubmitted = 3;
    expect(d.isModifiedAny).toBe(true);
    expect(
      await new UpdateDatasetSettingUseCase(
        datasets(async () => {
          throw new Error("422");
        }),
      ).execute(d, "distribution"),
    ).toBe(false);
    expect([d.distribution.minSubmitted, d.updatedAt, d.isModifiedAny]).toEqual([1, "u0", false]);
    d.allowExtraMetadata = true;
    await new UpdateDatasetSettingUseCase(
      datasets(async () => {
        throw new Error("x");
      }),
    ).execute(d, "allowExtraMetadata");
    expect(d.allowExtraMetadata).toBe(false);
  });
  it("requires guidelines and a minimum of 1 submitted response: 'This field is required.'", async () => {
    const update = vi.fn(async () => ({ updatedAt: "u1" }));
    const d = new Dataset(props);
    d.guidelines = "   ";
    await expect(new UpdateDatasetSettingUseCase(datasets(update)).execute(d, "guidelines")).rejects.toThrow("This field is required.");
    d.distribution.minSubmitted = 0;
    const e = await new UpdateDatasetSettingUseCase(datasets(update)).execute(d, "distribution").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ValidationError);
    expect((e as ValidationError).detail.key).toBe("validations.required");
    expect(update).not.toHaveBeenCalled();
    expect(d.isValid("allowExtraMetadata")).toBe(true);
    d.allowExtraMetadata = true;
    expect(await new UpdateDatasetSettingUseCase(datasets(update)).execute(d, "allowExtraMetadata")).toBe(true);
    expect(update).toHaveBeenCalledWith("d1", { allowExtraMetadata: true });
    d.distribution.minSubmitted = 2;
    await new UpdateDatasetSettingUseCase(datasets(update)).execute(d, "distribution");
    expect(update).toHaveBeenLastCalledWith("d1", { distribution: { strategy: "overlap", minSubmitted: 2 } });
  });
});

describe("question, field, metadata and vector updates", () => {
  it("questions send a blank description as null; invalid ones throw 'Question is not valid for update'", async () => {
    const update = vi.fn(async () => ({ ...QUESTIONS.label, updatedAt: "u9" }));
    const q = new Question(QUESTIONS.label);
    q.title = " New ";
    q.description = "  ";
    expect(await new UpdateQuestionSettingUseCase({ update } as unknown as QuestionRepository).execute(q)).toBe(true);
    expect(update).toHaveBeenCalledWith("q-label", { title: "New", description: null, settings: q.settings });
    expect([q.updatedAt, q.isModified]).toEqual(["u9", false]);
    q.title = "";
    expect(() => new UpdateQuestionSettingUseCase({ update } as unknown as QuestionRepository).execute(q)).toThrow(
      "Question is not valid for update",
    );
  });
  it("fields send the name when the title is empty and revert on failure", async () => {
    const update = vi.fn(async () => FIELDS[0]!);
    const f = new Field(FIELDS[0]!);
    f.title = "";
    await new UpdateFieldSettingUseCase({ update } as unknown as FieldRepository).execute(f);
    expect(update).toHaveBeenCalledWith("f-text", { title: "text", settings: { type: "text", use_markdown: false } });
    f.title = "Changed";
    expect(
      await new UpdateFieldSettingUseCase({
        update: async () => {
          throw new Error("x");
        },
      } as unknown as FieldRepository).execute(f),
    ).toBe(false);
    expect(f.title).toBe("");
    f.title = "x".repeat(501);
    expect(() => new UpdateFieldSettingUseCase({ update } as unknown as FieldRepository).execute(f)).toThrow(
      "Field is not valid for update",
    );
  });
  it("metadata and vectors validate 500-character titles and revert on failure", async () => {
    const m = new MetadataProperty({
      id: "m",
      name: "lang",
      title: "Lang",
      settings: { type: "terms", values: ["en"] },
      visibleForAnnotators: true,
      datasetId: "d1",
    });
    expect([m.isTerms, m.isNumeric]).toEqual([true, false]);
    const mUpdate = vi.fn(async () => ({
      id: "m",
      name: "lang",
      title: "L2",
      settings: m.settings,
      visibleForAnnotators: false,
      datasetId: "d1",
      updatedAt: "u",
    }));
    m.title = "L2";
    m.visibleForAnnotators = false;
    expect(m.isModified).toBe(true);
    await new UpdateMetadataSettingUseCase({ update: mUpdate } as unknown as MetadataRepository).execute(m);
    expect(mUpdate).toHaveBeenCalledWith("m", { title: "L2", visibleForAnnotators: false });
    expect(m.isModified).toBe(false);
    m.title = "x".repeat(501);
    expect(m.validate().title[0]?.text).toBe("This must be less than 500.");
    expect(() => new UpdateMetadataSettingUseCase({ update: mUpdate } as unknown as MetadataRepository).execute(m)).toThrow(
      "Metadata is not valid for update",
    );
    m.title = "ok";
    expect(
      await new UpdateMetadataSettingUseCase({
        update: async () => {
          throw new Error();
        },
      } as unknown as MetadataRepository).execute(m),
    ).toBe(false);
    expect(m.title).toBe("L2");

    const v = new Vector({ id: "v", name: "emb", title: "Emb", dimensions: 3, datasetId: "d1" });
    v.title = "x".repeat(501);
    expect(() => new UpdateVectorSettingUseCase({ update: vi.fn() } as unknown as VectorRepository).execute(v)).toThrow(
      "Vector is not valid for update",
    );
    v.title = "New";
    expect(v.settings).toEqual({ id: "v", title: "New", datasetId: "d1" });
    expect(
      await new UpdateVectorSettingUseCase({
        update: async () => {
          throw new Error();
        },
      } as unknown as VectorRepository).execute(v),
    ).toBe(false);
    expect(v.title).toBe("Emb");
    v.title = "New";
    expect(
      await new UpdateVectorSettingUseCase({
        update: async () => ({ id: "v", name: "emb", title: "New", dimensions: 3, datasetId: "d1", updatedAt: "u5" }),
      } as unknown as VectorRepository).execute(v),
    ).toBe(true);
    expect([v.isModified, v.updatedAt]).toEqual([false, "u5"]);
  });
  it("annotators see only metadata visible for annotators", () => {
    const a = new MetadataProperty({
      id: "a",
      name: "a",
      title: "a",
      settings: { type: "integer", min: 0, max: 3 },
      visibleForAnnotators: true,
      datasetId: "d",
    });
    const b = new MetadataProperty({
      id: "b",
      name: "b",
      title: "b",
      settings: { type: "float" },
      visibleForAnnotators: false,
      datasetId: "d",
    });
    expect(visibleMetadataFor([a, b], false)).toEqual([a]);
    expect(visibleMetadataFor([a, b], true)).toEqual([a, b]);
    expect(b.isNumeric).toBe(true);
  });
});
