import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { OAuth2Server } from "oauth2-mock-server";
import { startOpenIdProvider } from "@tessera/test-harness/openid";
import { launchBrowser, screenshot, startApp, type RunningApp } from "./harness.js";

/**
 * Sign-in through the hub's OAuth provider, with a local OpenID provider (oauth2-mock-server) standing
 * in for huggingface.co: its /authorize "authenticates" whoever `nextUser` says and redirects back.
 */
interface FakeUser {
  sub: string;
  preferred_username: string;
  name?: string;
}
let nextUser: FakeUser = { sub: "hf-1", preferred_username: "new-annotator", name: "New Annotator" };
let provider: OAuth2Server;
let app: RunningApp;
let space: RunningApp;
let browser: Browser;

beforeAll(async () => {
  provider = await startOpenIdProvider(() => nextUser);
  // The mock does not URL-decode Basic credentials, so the client id has no '-'.
  const oauth = {
    OAUTH2_HUGGINGFACE_CLIENT_ID: "tesseraclient",
    OAUTH2_HUGGINGFACE_CLIENT_SECRET: "e2e-secret",
    OPENID_PROVIDER_URL: provider.issuer.url!,
  };
  [app, space, browser] = await Promise.all([
    startApp(oauth),
    // A hosted space: the Hub injects these (no SPACE_HOST here, so the callback stays on this machine).
    startApp({
      ...oauth,
      OAUTH2_HUGGINGFACE_CLIENT_ID: "",
      OAUTH_CLIENT_ID: "tesseraclient",
      SPACE_ID: "team/annotate",
      SPACE_AUTHOR_NAME: "team",
      SPACE_REPO_NAME: "annotate",
    }),
    launchBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([app?.stop(), space?.stop()]);
  await provider?.stop();
});

async function roleOf(target: RunningApp, username: string): Promise<string | undefined> {
  const token = await fetch(`${target.url}/api/v1/token`, {
    method: "POST",
    body: new URLSearchParams({ username: "owner", password: target.ownerPassword }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const users = await fetch(`${target.url}/api/v1/users`, { headers: { authorization: `Bearer ${access_token}` } });
  const { items } = (await users.json()) as { items: { username: string; role: string }[] };
  return items.find((u) => u.username === username)?.role;
}

describe("OAuth sign-in in real Chromium", () => {
  it("signs a new user in through the provider and reaches home as an annotator", async () => {
    nextUser = { sub: "hf-100", preferred_username: "new-annotator", name: "New Annotator" };
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${app.url}/`);
    await page.waitForURL(`${app.url}/sign-in`);
    await page.getByRole("button", { name: "Sign in with Hugging Face" }).click();
    await page.waitForURL(`${app.url}/`);
    await page.getByRole("heading", { name: "Your datasets" }).waitFor();
    await screenshot(page, "oauth-home-new-annotator");
    expect(await roleOf(app, "new-annotator")).toBe("annotator");
    await context.close();
  });

  it("returns to the remembered path after signing in through the provider", async () => {
    nextUser = { sub: "hf-101", preferred_username: "second-annotator" };
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${app.url}/user-settings`);
    await page.waitForURL(/\/sign-in\?redirect=%2Fuser-settings$/);
    await page.getByRole("button", { name: "Sign in with Hugging Face" }).click();
    await page.waitForURL(`${app.url}/user-settings`);
    await context.close();
  });

  it("shows a clear message when the callback's state was already used", async () => {
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${app.url}/oauth/huggingface/callback?code=stolen&state=replayed`);
    // The page says what happened; the failed-request toast also shows the server's reason.
    await page.getByRole("alert").filter({ hasText: "Signing in with Hugging Face did not work" }).waitFor();
    await page.getByRole("alert").filter({ hasText: "The OAuth state is invalid or has expired" }).waitFor();
    await context.close();
  });

  it("on a hosted space, sends sign-in to the welcome page, whose button signs the space author in as owner", async () => {
    nextUser = { sub: "hf-200", preferred_username: "team", name: "Team Lead" };
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${space.url}/sign-in`);
    await page.waitForURL(`${space.url}/welcome-hf-sign-in`);
    await page.getByRole("heading", { name: "Welcome to annotate" }).waitFor();
    await screenshot(page, "oauth-welcome-hf-sign-in");
    await page.getByRole("link", { name: "Sign in with username" }).click();
    await page.waitForURL(`${space.url}/sign-in?omitCTA=true`);
    await page.getByLabel("Username").waitFor();
    await page.goBack();
    await page.waitForURL(`${space.url}/welcome-hf-sign-in`);
    await page.getByRole("button", { name: "Sign in with Hugging Face" }).click();
    await page.waitForURL(`${space.url}/`);
    await page.getByRole("heading", { name: "Your datasets" }).waitFor();
    expect(await roleOf(space, "team")).toBe("owner");
    await context.close();
  });

  it("outside a hosted space there is no welcome page", async () => {
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${app.url}/welcome-hf-sign-in`);
    await page.waitForURL(`${app.url}/sign-in`);
    await context.close();
  });
});
