import { describe, expect, it } from "vitest";
import type { UploadMapping, UploadPreview, UploadProgress } from "@tessera/domain";
import { UploadViewModel, type UploadUseCases } from "./upload-view-model";

const preview: UploadPreview = {
  id: "u1",
  filename: "a.csv",
  format: "csv",
  size: 10,
  columns: [
    { name: "key", feature: { _type: "Value", dtype: "string" }, hint: null },
    { name: "review", feature: { _type: "Value", dtype: "string" }, hint: null },
    { name: "stars", feature: { _type: "Value", dtype: "int64" }, hint: null },
  ],
  rows: [{ key: "k1", review: "Good", stars: "5" }],
};
const progress = (status: UploadProgress["status"], stored = 0, failed = 0): UploadProgress => ({
  id: "u1",
  status,
  rowsDone: stored + failed,
  rowsStored: stored,
  rowsFailed: failed,
  progress: status === "finished" ? 1 : 0.5,
  error: null,
});

function fakes(statuses: UploadProgress[]) {
  const imported: UploadMapping[] = [];
  const useCases: UploadUseCases = {
    upload: { execute: async () => preview },
    importUpload: {
      execute: async (_id, _ds, mapping) => {
        imported.push(mapping);
        return progress("queued");
      },
    },
    progress: { execute: async () => statuses.shift() ?? progress("finished", 1) },
    cancel: { execute: async () => progress("cancelled") },
    failures: { execute: async () => ({ filename: "f.csv", bytes: 1 }) },
  };
  return { useCases, imported };
}

const settled = async (vm: UploadViewModel) => {
  for (let i = 0; i < 100 && vm.step !== "done"; i++) await new Promise((r) => setTimeout(r, 2));
};

describe("UploadViewModel", () => {
  it("proposes a mapping, lets the user change it, imports and follows the progress to the end", async () => {
    const { useCases, imported } = fakes([progress("importing", 0), progress("finished", 1, 0)]);
    const vm = new UploadViewModel(useCases, "d1", { fields: ["text"], questions: ["label"], metadata: ["stars"], vectors: [] }, 1);
    await vm.pick({ name: "a.csv", size: 10 });
    expect(vm.step).toBe("preview");
    expect(vm.mapping).toMatchObject({ fields: [{ source: "key", target: "text" }], metadata: [{ source: "stars", target: "stars" }] });
    vm.setTarget("key", "external_id");
    vm.setTarget("review", "field");
    expect(vm.targets.get("review")).toEqual({ kind: "field", name: "text" });
    await vm.start();
    await settled(vm);
    expect(imported).toEqual([
      {
        fields: [{ source: "review", target: "text" }],
        metadata: [{ source: "stars", target: "stars" }],
        suggestions: [],
        responses: [],
        vectors: [],
        external_id: "key",
      },
    ]);
    expect(vm.progress).toMatchObject({ status: "finished", rowsStored: 1 });
  });

  it("shows the server's message for a refused file and stays on the picker", async () => {
    const { useCases } = fakes([]);
    useCases.upload = {
      execute: async () => {
        throw Object.assign(new Error("x"), { detail: "Row 3: not valid JSON" });
      },
    };
    const vm = new UploadViewModel(useCases, "d1", { fields: ["text"], questions: [], metadata: [], vectors: [] }, 1);
    await vm.pick({ name: "a.jsonl", size: 3 });
    expect(vm).toMatchObject({ step: "pick", error: "Row 3: not valid JSON" });
  });

  it("cannot import without a mapped column", async () => {
    const { useCases } = fakes([]);
    const vm = new UploadViewModel(useCases, "d1", { fields: [], questions: [], metadata: [], vectors: [] }, 1);
    await vm.pick({ name: "a.csv", size: 10 });
    expect(vm.canImport).toBe(false);
  });
});
