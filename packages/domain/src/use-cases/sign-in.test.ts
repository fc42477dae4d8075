import { describe, expect, it, vi } from "vitest";
import { SignInUseCase } from "./sign-in.js";
import { User } from "../entities/user.js";
import { ErrorCode, RepositoryError } from "../errors/error-codes.js";
import type { TokenStore } from "../ports/auth-repository.js";

const user = new User({ id: "u1", username: "ana", firstName: "Ana", lastName: "Diaz", role: "annotator", apiKey: "k" });

function memoryTokens(): TokenStore {
  let value: string | null = null;
  return {
    get: () => value,
    set: (t) => {
      value = t;
    },
    clear: () => {
      value = null;
    },
  };
}

describe("SignInUseCase", () => {
  it("stores the token and returns the user", async () => {
    const tokens = memoryTokens();
    const signIn = vi.fn().mockResolvedValue("jwt");
    const result = await new SignInUseCase({ signIn }, tokens, { getMe: async () => user }).execute("  ana ", "pw");
    expect(signIn).toHaveBeenCalledWith("ana", "pw");
    expect(tokens.get()).toBe("jwt");
    expect(result.username).toBe("ana");
  });

  it("propagates a failed sign-in and stores nothing", async () => {
    const tokens = memoryTokens();
    const auth = {
      signIn: async () => {
        throw new RepositoryError(ErrorCode.ERROR_SIGNING_IN, 401);
      },
    };
    await expect(new SignInUseCase(auth, tokens, { getMe: async () => user }).execute("a", "b")).rejects.toMatchObject({
      code: "ERROR_SIGNING_IN",
    });
    expect(tokens.get()).toBeNull();
  });

  it("clears the token when the user cannot be loaded", async () => {
    const tokens = memoryTokens();
    const users = {
      getMe: async () => {
        throw new RepositoryError(ErrorCode.ERROR_FETCHING_USER, 500);
      },
    };
    await expect(new SignInUseCase({ signIn: async () => "jwt" }, tokens, users).execute("a", "b")).rejects.toBeInstanceOf(RepositoryError);
    expect(tokens.get()).toBeNull();
  });
});
