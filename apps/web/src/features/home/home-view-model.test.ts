import { describe, expect, it } from "vitest";
import { Dataset, Progress, type GetDatasetProgressUseCase, type ListDatasetsUseCase } from "@tessera/domain";
import { HomeViewModel, pythonSnippet } from "./home-view-model";

const ds = (id: string, name: string, workspace: string, created: string, updated: string) =>
  new Dataset({
    id,
    name,
    guidelines: null,
    status: "ready",
    workspaceId: workspace,
    workspaceName: workspace,
    allowExtraMetadata: false,
    distribution: { strategy: "overlap", minSubmitted: 1 },
    metadata: null,
    createdAt: created,
    updatedAt: updated,
    lastActivityAt: updated,
  });
const list = (items: Dataset[]) => ({ execute: async () => items }) as unknown as ListDatasetsUseCase;
const progress = (map: Record<string, Progress | Error>) =>
  ({
    execute: async (id: string) => {
      const p = map[id];
      if (p instanceof Error) throw p;
      return p;
    },
  }) as unknown as GetDatasetProgressUseCase;

const a = ds("a", "imdb", "team", "2026-01-01T00:00:00", "2026-03-01T00:00:00");
const b = ds("b", "Banking77", "research", "2026-02-01T00:00:00", "2026-02-15T00:00:00");
const c = ds("c", "chat", "alpha", "2026-01-15T00:00:00", "2026-04-01T00:00:00");

describe("HomeViewModel", () => {
  it("sorts by updated (newest first) by default and by any column on click, flipping on a second click", async () => {
    const vm = new HomeViewModel(list([a, b, c]));
    await vm.load();
    expect(vm.visible.map((d) => d.id)).toEqual(["c", "a", "b"]);
    vm.sortBy("name");
    expect(vm.visible.map((d) => d.name)).toEqual(["Banking77", "chat", "imdb"]);
    vm.sortBy("name");
    expect(vm.visible.map((d) => d.name)).toEqual(["imdb", "chat", "Banking77"]);
    vm.sortBy("workspace");
    expect(vm.visible.map((d) => d.workspaceName)).toEqual(["alpha", "research", "team"]);
    vm.sortBy("createdAt");
    expect(vm.visible.map((d) => d.id)).toEqual(["b", "c", "a"]);
  });

  it("searches by dataset or workspace name, case-insensitively", async () => {
    const vm = new HomeViewModel(list([a, b, c]));
    await vm.load();
    vm.setSearch("BANK");
    expect(vm.visible.map((d) => d.id)).toEqual(["b"]);
    vm.setSearch("team");
    expect(vm.visible.map((d) => d.id)).toEqual(["a"]);
    vm.setSearch("zzz");
    expect(vm.visible).toEqual([]);
    expect(vm.isEmpty).toBe(false);
  });

  it("loads team progress per dataset and sorts by it; a failure marks only that row", async () => {
    const vm = new HomeViewModel(list([a, b, c]), progress({ a: new Progress(10, 5, 5), b: new Progress(4, 4, 0), c: new Error("x") }));
    await vm.load();
    await new Promise((r) => setTimeout(r, 0));
    expect(vm.progress.get("c")).toBe("failed");
    vm.sortBy("progress");
    expect(vm.visible.map((d) => d.id)).toEqual(["b", "a", "c"]);
  });

  it("builds the hub import path with the repo id URL-encoded", () => {
    const vm = new HomeViewModel(list([]));
    expect(vm.importPath).toBeNull();
    vm.setRepoId("  stanfordnlp/imdb ");
    expect(vm.importPath).toBe("/new/stanfordnlp%2Fimdb");
  });

  it("writes the Python snippet with the origin and API key", () => {
    expect(pythonSnippet("http://localhost:6900", "key-1")).toContain('api_url="http://localhost:6900"');
    expect(pythonSnippet("http://localhost:6900", "key-1")).toContain('api_key="key-1"');
  });
});
