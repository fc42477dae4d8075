import { describe, expect, it } from "vitest";
import {
  ErrorCode,
  LoadOAuthProvidersUseCase,
  SignInWithOAuthUseCase,
  StartOAuthSignInUseCase,
  TOKENS,
  type OAuthRepository,
  type TokenStore,
} from "@tessera/domain";
import { createContainer } from "./container.js";
import { MemoryStorage } from "./storage/local-storage.js";
import { json } from "./testing/fake-fetch.js";

const me = {
  id: "u1",
  username: "alice",
  first_name: "Alice",
  last_name: null,
  role: "annotator",
  api_key: "k",
  inserted_at: "x",
  updated_at: "x",
};
const make = (handler: (request: Request) => Response) => {
  const requests: Request[] = [];
  const c = createContainer({
    storage: new MemoryStorage(),
    origin: "http://app.test",
    basePath: "api",
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(String(input), init);
      requests.push(request);
      return handler(request);
    }) as typeof fetch,
  });
  return { c, requests };
};

describe("OAuth bindings", () => {
  it("lists the providers, without credentials, and an empty list when the call fails", async () => {
    const { c, requests } = make(() => json({ items: [{ name: "huggingface" }] }));
    c.resolve<TokenStore>(TOKENS.TokenStore).set("stale-token");
    expect(await c.resolve(LoadOAuthProvidersUseCase).execute()).toEqual([{ name: "huggingface" }]);
    expect(new URL(requests[0]!.url).pathname).toBe("/api/v1/oauth2/providers");
    expect(requests[0]!.headers.get("authorization")).toBeNull();
    await expect(
      make(() => json({}, 500))
        .c.resolve<OAuthRepository>(TOKENS.OAuthRepository)
        .getProviders(),
    ).rejects.toMatchObject({ code: ErrorCode.ERROR_FETCHING_OAUTH_PROVIDERS });
    expect(
      await make(() => json({}, 500))
        .c.resolve(LoadOAuthProvidersUseCase)
        .execute(),
    ).toEqual([]);
  });

  it("exchanges the callback query for a token, then loads the user", async () => {
    const { c, requests } = make((r) =>
      new URL(r.url).pathname.endsWith("/access-token")
        ? json({ access_token: "jwt-1", token_type: "bearer", redirect_to: "/user-settings" })
        : json(me),
    );
    const result = await c.resolve(SignInWithOAuthUseCase).execute("huggingface", { code: "c1", state: "s1" });
    expect(result.user.username).toBe("alice");
    expect(result.redirectTo).toBe("/user-settings");
    const exchange = new URL(requests[0]!.url);
    expect(exchange.pathname).toBe("/api/v1/oauth2/providers/huggingface/access-token");
    expect(Object.fromEntries(exchange.searchParams)).toEqual({ code: "c1", state: "s1" });
    expect(requests[1]!.headers.get("authorization")).toBe("Bearer jwt-1");
  });

  it("maps a refused exchange to ERROR_FETCHING_OAUTH_ACCESS_TOKEN", async () => {
    const { c } = make(() => json({ detail: "The OAuth state was already used or has expired" }, 400));
    await expect(c.resolve(SignInWithOAuthUseCase).execute("huggingface", { code: "c", state: "s" })).rejects.toMatchObject({
      code: ErrorCode.ERROR_FETCHING_OAUTH_ACCESS_TOKEN,
      status: 400,
    });
    expect(c.resolve<TokenStore>(TOKENS.TokenStore).get()).toBeNull();
  });

  it("builds the authentication URL under the API base path", () => {
    const { c } = make(() => json({}));
    expect(c.resolve(StartOAuthSignInUseCase).execute("huggingface", { redirect: "/a" })).toBe(
      "http://app.test/api/v1/oauth2/providers/huggingface/authentication?redirect=%2Fa",
    );
  });
});
