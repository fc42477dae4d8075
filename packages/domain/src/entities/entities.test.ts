import { describe, expect, it } from "vitest";
import { User } from "./user.js";
import { Dataset } from "./dataset.js";
import { Progress } from "./progress.js";
import { ListDatasetsUseCase } from "../use-cases/list-datasets.js";
import { SignOutUseCase } from "../use-cases/sign-out.js";

const base = {
  id: "d1",
  name: "a",
  guidelines: null,
  status: "ready" as const,
  workspaceId: "w",
  workspaceName: "ws",
  allowExtraMetadata: false,
  distribution: { strategy: "overlap" as const, minSubmitted: 1 },
  metadata: null,
  createdAt: "2026-01-01T00:00:00",
  updatedAt: "2026-01-01T00:00:00",
  lastActivityAt: "2026-01-01T00:00:00",
};

describe("entities", () => {
  it("User derives role flags, full name and initials", () => {
    const u = new User({ id: "1", username: "jdoe", firstName: "Jane", lastName: "Doe", role: "admin", apiKey: "k" });
    expect(u.isAdminOrOwner).toBe(true);
    expect(u.fullName).toBe("Jane Doe");
    expect(u.initials).toBe("JD");
    const a = new User({ id: "2", username: "zed", firstName: "", lastName: null, role: "annotator", apiKey: "k" });
    expect(a.isAdminOrOwner).toBe(false);
    expect(a.initials).toBe("Z");
  });
  it("Dataset is created from the UI when metadata has a repoId", () => {
    expect(new Dataset(base).createdFromUI).toBe(false);
    expect(new Dataset({ ...base, metadata: { repoId: "stanfordnlp/imdb" } }).createdFromUI).toBe(true);
  });
  it("Progress rounds percentages to 2 decimals and handles empty datasets", () => {
    const p = new Progress(3, 1, 2);
    expect(p.percentCompleted).toBe(33.33);
    expect(p.percentPending).toBe(66.67);
    expect(new Progress(0, 0, 0).percentCompleted).toBe(0);
  });
  it("ListDatasetsUseCase sorts by most recent update", async () => {
    const older = new Dataset({ ...base, id: "old", updatedAt: "2026-01-01T00:00:00" });
    const newer = new Dataset({ ...base, id: "new", updatedAt: "2026-02-01T00:00:00" });
    const list = await new ListDatasetsUseCase({
      list: async () => [older, newer],
      getProgress: async () => new Progress(0, 0, 0),
    }).execute();
    expect(list.map((d) => d.id)).toEqual(["new", "old"]);
  });
  it("SignOutUseCase clears the token", () => {
    let value: string | null = "t";
    new SignOutUseCase({
      get: () => value,
      set: () => {},
      clear: () => {
        value = null;
      },
    }).execute();
    expect(value).toBeNull();
  });
});
