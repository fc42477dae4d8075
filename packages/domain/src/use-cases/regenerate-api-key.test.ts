import { describe, expect, it } from "vitest";
import { RegenerateApiKeyUseCase } from "./regenerate-api-key.js";
import { User } from "../entities/user.js";
import { ErrorCode, RepositoryError } from "../errors/error-codes.js";

const user = new User({ id: "u1", username: "ana", firstName: "Ana", lastName: null, role: "annotator", apiKey: null });

describe("RegenerateApiKeyUseCase", () => {
  it("returns the user with the new key for this one showing", async () => {
    const calls: string[] = [];
    const uc = new RegenerateApiKeyUseCase({
      regenerateApiKey: async (id) => {
        calls.push(id);
        return "tsr.new";
      },
    });
    const updated = await uc.execute(user);
    expect(calls).toEqual(["u1"]);
    expect(updated.apiKey).toBe("tsr.new");
    expect(updated.username).toBe("ana");
    expect(user.apiKey).toBeNull();
  });
  it("passes failures on", async () => {
    const uc = new RegenerateApiKeyUseCase({
      regenerateApiKey: async () => {
        throw new RepositoryError(ErrorCode.ERROR_REGENERATING_API_KEY, 500);
      },
    });
    await expect(uc.execute(user)).rejects.toMatchObject({ code: ErrorCode.ERROR_REGENERATING_API_KEY });
  });
});
