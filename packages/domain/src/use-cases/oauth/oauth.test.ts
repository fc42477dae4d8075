import { describe, expect, it, vi } from "vitest";
import { LoadOAuthProvidersUseCase, SignInWithOAuthUseCase, StartOAuthSignInUseCase, type OAuthRepository } from "./index.js";
import { ErrorCode, RepositoryError } from "../../errors/error-codes.js";
import { User } from "../../entities/user.js";

const repo = (over: Partial<OAuthRepository> = {}): OAuthRepository => ({
  getProviders: async () => [{ name: "huggingface" }],
  getAccessToken: async () => ({ accessToken: "jwt", redirectTo: "/dataset/1/annotation-mode" }),
  authenticationUrl: (provider, query) => `/api/v1/oauth2/providers/${provider}/authentication?${new URLSearchParams(query).toString()}`,
  ...over,
});
const tokenStore = () => {
  let t: string | null = null;
  return {
    get: () => t,
    set: (v: string) => {
      t = v;
    },
    clear: () => {
      t = null;
    },
  };
};
const alice = new User({ id: "1", username: "alice", firstName: "Alice", lastName: null, role: "annotator", apiKey: "k" });

describe("OAuth use cases", () => {
  it("lists providers, and an empty list when they cannot be loaded", async () => {
    expect(await new LoadOAuthProvidersUseCase(repo()).execute()).toEqual([{ name: "huggingface" }]);
    const failing = repo({
      getProviders: async () => {
        throw new RepositoryError(ErrorCode.ERROR_FETCHING_OAUTH_PROVIDERS, 500);
      },
    });
    expect(await new LoadOAuthProvidersUseCase(failing).execute()).toEqual([]);
  });

  it("builds the authentication URL with the current query", () => {
    expect(new StartOAuthSignInUseCase(repo()).execute("huggingface", { redirect: "/x" })).toBe(
      "/api/v1/oauth2/providers/huggingface/authentication?redirect=%2Fx",
    );
  });

  it("exchanges the callback query, stores the token and loads the user", async () => {
    const tokens = tokenStore();
    const getAccessToken = vi.fn(async () => ({ accessToken: "jwt", redirectTo: "/somewhere" }));
    const uc = new SignInWithOAuthUseCase(repo({ getAccessToken }), tokens, { getMe: async () => alice });
    expect(await uc.execute("huggingface", { code: "c", state: "s" })).toEqual({ user: alice, redirectTo: "/somewhere" });
    expect(getAccessToken).toHaveBeenCalledWith("huggingface", { code: "c", state: "s" });
    expect(tokens.get()).toBe("jwt");
  });

  it("fails with ERROR_FETCHING_OAUTH_ACCESS_TOKEN and leaves no token when the user cannot be loaded", async () => {
    const tokens = tokenStore();
    const uc = new SignInWithOAuthUseCase(repo(), tokens, {
      getMe: async () => {
        throw new Error("401");
      },
    });
    await expect(uc.execute("huggingface", {})).rejects.toMatchObject({ code: ErrorCode.ERROR_FETCHING_OAUTH_ACCESS_TOKEN });
    expect(tokens.get()).toBeNull();
  });
});
