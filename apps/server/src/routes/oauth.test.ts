import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Events, type OAuth2Server } from "oauth2-mock-server";
import { SignJWT } from "jose";
import { startOpenIdProvider } from "@tessera/test-harness/openid";
import { startTestServer, type TestServer } from "../testing/test-server.js";

/**
 * The local OpenID provider (oauth2-mock-server): the user it "authenticates" is whatever `nextUser`
 * says. Its token endpoint does not URL-decode Basic credentials, so the client id has no '-'.
 */
interface FakeUser {
  sub: string;
  preferred_username?: string;
  name?: string;
  orgs?: unknown[];
}
let provider: OAuth2Server;
let nextUser: FakeUser = { sub: "u-1", preferred_username: "alice", name: "Alice Liddell" };
let server: TestServer;
let plain: TestServer;

beforeAll(async () => {
  provider = await startOpenIdProvider(() => nextUser);
  [server, plain] = await Promise.all([
    startTestServer({
      OAUTH_CLIENT_ID: "tesseraclient",
      OAUTH_CLIENT_SECRET: "s3cret",
      OAUTH_SCOPES: "openid profile email",
      OPENID_PROVIDER_URL: provider.issuer.url!,
      SPACE_ID: "space-org/annotate",
      SPACE_AUTHOR_NAME: "space-org",
      SPACE_HOST: "space-org-annotate.hf.space",
    }),
    startTestServer(),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), plain?.stop()]);
  await provider?.stop();
});

const AUTH = "/api/v1/oauth2/providers/huggingface/authentication";
const TOKEN = "/api/v1/oauth2/providers/huggingface/access-token";

/** Starts a sign-in: returns the provider's authorize URL and the state cookie the browser got. */
async function startSignIn(query = ""): Promise<{ authorize: URL; cookie: string }> {
  const res = await fetch(`${server.url}${AUTH}${query}`, { redirect: "manual" });
  expect(res.status).toBe(303);
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  return { authorize: new URL(res.headers.get("location")!), cookie };
}

/** Lets the provider "authenticate" the user and returns the callback query it sends back. */
async function authorize(authorizeUrl: URL): Promise<URLSearchParams> {
  const res = await fetch(authorizeUrl, { redirect: "manual" });
  expect(res.status).toBe(302);
  const callback = new URL(res.headers.get("location")!);
  expect(callback.pathname).toBe("/oauth/huggingface/callback");
  return callback.searchParams;
}

const exchange = (query: URLSearchParams, cookie: string | null) =>
  fetch(`${server.url}${TOKEN}?${query.toString()}`, { headers: cookie ? { cookie } : {} });

async function signInAs(user: FakeUser): Promise<{ access_token: string; token_type: string }> {
  nextUser = user;
  const { authorize: url, cookie } = await startSignIn();
  const res = await exchange(await authorize(url), cookie);
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { access_token: string; token_type: string };
}

const me = async (token: string) =>
  (await (await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    username: string;
    role: string;
    first_name: string;
  };

describe("GET /api/v1/oauth2/providers", () => {
  it("lists the configured provider, publicly", async () => {
    const res = await fetch(`${server.url}/api/v1/oauth2/providers`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ items: [{ name: "huggingface" }] });
  });

  it("is empty when no provider is configured", async () => {
    expect(await (await fetch(`${plain.url}/api/v1/oauth2/providers`)).json()).toEqual({ items: [] });
  });
});

describe("GET /api/v1/oauth2/providers/{provider}/authentication", () => {
  it("redirects to the provider with a signed state, PKCE S256, nonce, scopes and the callback route", async () => {
    const { authorize: url, cookie } = await startSignIn("?orgIds=org-1&ignored=x");
    expect(url.origin + url.pathname).toBe(`${provider.issuer.url}/authorize`);
    const q = url.searchParams;
    expect(q.get("client_id")).toBe("tesseraclient");
    expect(q.get("response_type")).toBe("code");
    expect(q.get("scope")).toBe("openid profile email");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(q.get("nonce")).toBeTruthy();
    expect(q.get("state")!.split(".")).toHaveLength(3);
    expect(q.get("orgIds")).toBe("org-1");
    expect(q.has("ignored")).toBe(false);
    // On a space the callback is on the space's public https host.
    expect(q.get("redirect_uri")).toBe("https://space-org-annotate.hf.space/oauth/huggingface/callback");
    expect(cookie).toMatch(/^tessera_oauth2_state=[\w-]+$/);
  });

  it("answers 404 for an unknown provider", async () => {
    const res = await fetch(`${server.url}/api/v1/oauth2/providers/github/authentication`, { redirect: "manual" });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: "OAuth Provider 'github' not found" });
    expect((await fetch(`${plain.url}${AUTH}`, { redirect: "manual" })).status).toBe(404);
  });
});

describe("GET /api/v1/oauth2/providers/{provider}/access-token", () => {
  it("signs a new user in as an annotator and returns a bearer token like /token", async () => {
    const body = await signInAs({ sub: "u-100", preferred_username: "new-annotator", name: "New Annotator" });
    expect(body.token_type).toBe("bearer");
    expect(await me(body.access_token)).toMatchObject({ username: "new-annotator", role: "annotator", first_name: "New Annotator" });
  });

  it("finds the same user again on a later sign-in", async () => {
    const first = await me((await signInAs({ sub: "u-200", preferred_username: "returning" })).access_token);
    const second = await me((await signInAs({ sub: "u-200", preferred_username: "returning" })).access_token);
    expect(second).toEqual(first);
  });

  it("makes the space author, and admins of the author organisation, owners", async () => {
    expect((await me((await signInAs({ sub: "u-300", preferred_username: "space-org" })).access_token)).role).toBe("owner");
    const admin = {
      sub: "u-301",
      preferred_username: "org-admin",
      orgs: [{ sub: "o-1", preferred_username: "space-org", roleInOrg: "admin" }],
    };
    expect((await me((await signInAs(admin)).access_token)).role).toBe("owner");
    const member = {
      sub: "u-302",
      preferred_username: "org-member",
      orgs: [{ sub: "o-1", preferred_username: "space-org", roleInOrg: "read" }],
    };
    expect((await me((await signInAs(member)).access_token)).role).toBe("annotator");
  });

  it("refuses to take over an existing local account with the same username (409)", async () => {
    nextUser = { sub: "u-400", preferred_username: "owner" };
    const { authorize: url, cookie } = await startSignIn();
    const res = await exchange(await authorize(url), cookie);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/already exists/);
  });

  it("refuses a replayed state (single use) with 400", async () => {
    nextUser = { sub: "u-500", preferred_username: "replay-victim" };
    const { authorize: url, cookie } = await startSignIn();
    const callback = await authorize(url);
    expect((await exchange(callback, cookie)).status).toBe(200);
    const replay = await exchange(callback, cookie);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({ detail: "The OAuth state was already used or has expired" });
  });

  it("refuses a forged state with 400", async () => {
    const { authorize: url, cookie } = await startSignIn();
    const callback = await authorize(url);
    const id = cookie.split("=")[1]!;
    const forged = await new SignJWT({ prv: "huggingface" })
      .setProtectedHeader({ alg: "HS256" })
      .setJti(id)
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode("not-the-server-secret"));
    for (const state of [forged, "plainly-wrong", `${callback.get("state")!.slice(0, -2)}xx`]) {
      const res = await exchange(new URLSearchParams({ code: callback.get("code")!, state }), cookie);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: "The OAuth state is invalid or has expired" });
    }
    // The genuine state still works once: the forgeries did not consume it.
    expect((await exchange(callback, cookie)).status).toBe(200);
  });

  it("refuses a state that was not started in this browser (no or another cookie) with 400", async () => {
    const { authorize: url } = await startSignIn();
    const callback = await authorize(url);
    const other = await startSignIn();
    expect((await exchange(callback, null)).status).toBe(400);
    const res = await exchange(callback, other.cookie);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: "The OAuth state does not belong to this browser session" });
  });

  it("reports an error the provider sent back on the redirect with 400", async () => {
    const { authorize: url, cookie } = await startSignIn();
    const state = url.searchParams.get("state")!;
    const res = await exchange(new URLSearchParams({ error: "access_denied", error_description: "The user said no", state }), cookie);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: "The OAuth provider refused the sign-in: access_denied: The user said no" });
  });

  it("reports a code the provider's token endpoint refuses with 401, never 500", async () => {
    const { authorize: url, cookie } = await startSignIn();
    const callback = await authorize(url);
    provider.service.once(Events.BeforeResponse, (response) => {
      response.statusCode = 400;
      response.body = { error: "invalid_grant", error_description: "The code has expired" };
    });
    const res = await exchange(callback, cookie);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: "The OAuth provider refused the sign-in: invalid_grant: The code has expired" });
  });

  it("answers 400 without state, 404 for an unknown provider", async () => {
    expect((await fetch(`${server.url}${TOKEN}?code=abc`)).status).toBe(400);
    expect((await fetch(`${server.url}/api/v1/oauth2/providers/nope/access-token?code=a&state=b`)).status).toBe(404);
  });
});

describe("GET /api/v1/settings", () => {
  it("carries the hosted space's variables when on a space", async () => {
    const res = await fetch(`${server.url}/api/v1/settings`);
    expect(await res.json()).toEqual({
      argilla: { show_huggingface_space_persistent_storage_warning: true, share_your_progress_enabled: false },
      huggingface: {
        space_id: "space-org/annotate",
        space_title: null,
        space_subdomain: null,
        space_host: "space-org-annotate.hf.space",
        space_repo_name: "annotate",
        space_author_name: "space-org",
        space_persistent_storage_enabled: false,
      },
    });
  });

  it("has null space fields outside a space", async () => {
    expect(await (await fetch(`${plain.url}/api/v1/settings`)).json()).toEqual({
      argilla: { show_huggingface_space_persistent_storage_warning: null, share_your_progress_enabled: false },
      huggingface: null,
    });
  });
});
