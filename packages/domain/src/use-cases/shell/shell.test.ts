import { describe, expect, it, vi } from "vitest";
import { GetDatasetProgressUseCase, GetEnvironmentUseCase, ListMyWorkspacesUseCase } from "./index.js";
import { Progress } from "../../entities/progress.js";

describe("shell use cases", () => {
  it("lists my workspaces by name", async () => {
    const uc = new ListMyWorkspacesUseCase({
      listMine: async () => [
        { id: "2", name: "zeta" },
        { id: "1", name: "alpha" },
      ],
    });
    expect((await uc.execute()).map((w) => w.name)).toEqual(["alpha", "zeta"]);
  });

  it("gets a dataset's progress", async () => {
    const getProgress = vi.fn(async () => new Progress(4, 1, 3));
    const p = await new GetDatasetProgressUseCase({ list: async () => [], getProgress }).execute("d1");
    expect(getProgress).toHaveBeenCalledWith("d1");
    expect(p.percentCompleted).toBe(25);
  });

  it("loads the environment once, and treats a failure as no hosted space (retrying later)", async () => {
    const env = { hostedSpace: null, showPersistentStorageWarning: true };
    const getEnvironment = vi.fn().mockRejectedValueOnce(new Error("down")).mockResolvedValue(env);
    const uc = new GetEnvironmentUseCase({ getEnvironment });
    expect(await uc.execute()).toEqual({ hostedSpace: null, showPersistentStorageWarning: false });
    expect(await uc.execute()).toBe(env);
    expect(await uc.execute()).toBe(env);
    expect(getEnvironment).toHaveBeenCalledTimes(2);
  });
});
