import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser, screenshot, signIn, startApp, type RunningApp } from "./harness.js";

let app: RunningApp;
let browser: Browser;
let token: string;
let datasetId: string;

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${app.url}/api/v1/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  const tokenResponse = await fetch(`${app.url}/api/v1/token`, {
    method: "POST",
    body: new URLSearchParams({ username: "owner", password: app.ownerPassword }),
  });
  token = ((await tokenResponse.json()) as { access_token: string }).access_token;
  const workspace = await api<{ id: string }>("POST", "workspaces", { name: "shell-team" });
  datasetId = (await api<{ id: string }>("POST", "datasets", { name: "shell-reviews", workspace_id: workspace.id })).id;
  await api("POST", "datasets", { name: "another-set", workspace_id: workspace.id });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function signedInPage(locale = "en-US"): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale, viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${app.url}/sign-in`);
  await signIn(page, app);
  await page.waitForURL(`${app.url}/`);
  return { context, page };
}

describe("web app shell in real Chromium", () => {
  it("remembers redirectTo through sign-in and sends a signed-in user away from sign-in", async () => {
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${app.url}/dataset/${datasetId}/settings?tab=fields`);
    await page.waitForURL(`${app.url}/sign-in?redirect=${encodeURIComponent(`/dataset/${datasetId}/settings?tab=fields`)}`);
    await signIn(page, app);
    await page.waitForURL(`${app.url}/dataset/${datasetId}/settings?tab=fields`);
    await page.goto(`${app.url}/sign-in`);
    await page.waitForURL(`${app.url}/`);
    await context.close();
  });

  it("shows the 404 page with its texts and a way back home", async () => {
    const { context, page } = await signedInPage();
    await page.goto(`${app.url}/no/such/page`);
    await page.getByRole("heading", { name: "This page could not be found" }).waitFor();
    expect(await page.getByText("We can't seem to find the page you are looking for").isVisible()).toBe(true);
    await page.getByRole("link", { name: "Back to home page" }).click();
    await page.waitForURL(`${app.url}/`);
    await context.close();
  });

  it("lists the datasets with workspace, dates and team progress; searches, sorts and links to annotation", async () => {
    const { context, page } = await signedInPage();
    const table = page.getByRole("table");
    await table.getByRole("link", { name: "shell-reviews" }).waitFor();
    expect(await table.getByRole("link", { name: "shell-reviews" }).getAttribute("href")).toBe(`/dataset/${datasetId}/annotation-mode`);
    expect(await table.getByRole("cell", { name: "shell-team" }).count()).toBe(2);
    await table.getByRole("progressbar").first().waitFor();
    await table.getByRole("button", { name: /Dataset/ }).click();
    expect(await table.getByRole("rowheader").allTextContents()).toEqual(["another-set", "shell-reviews"]);
    await page.getByRole("searchbox", { name: "Search datasets" }).fill("REVIEWS");
    expect(await table.getByRole("rowheader").allTextContents()).toEqual(["shell-reviews"]);
    await page.getByText("1 dataset found").waitFor();
    await page.getByRole("searchbox", { name: "Search datasets" }).fill("");
    await page.getByPlaceholder("Paste a repo id e.g., stanfordnlp/imdb").fill("stanfordnlp/imdb");
    await page.getByRole("button", { name: "Import dataset" }).click();
    await page.waitForURL(`${app.url}/new/stanfordnlp%2Fimdb`);
    await page.goBack();
    await table.getByRole("link", { name: "shell-reviews" }).click();
    await page.waitForURL((url) => url.pathname === `/dataset/${datasetId}/annotation-mode`);
    await context.close();
  });

  it("switches the theme in My settings, keeps it after a reload, and screenshots both themes", async () => {
    const { context, page } = await signedInPage();
    const theme = () => page.evaluate(() => document.documentElement.getAttribute("data-theme"));
    await page.getByRole("table").waitFor();
    await page.getByRole("link", { name: "shell-reviews" }).waitFor();
    await screenshot(page, "shell-home-light");
    await page.getByRole("button", { name: "User menu" }).click();
    await page.getByRole("menuitem", { name: "My settings" }).click();
    await page.waitForURL(`${app.url}/user-settings`);
    await page.getByRole("heading", { name: "My settings", level: 1 }).waitFor();
    await page.getByText("shell-team").waitFor();
    await page.getByRole("radio", { name: "Light" }).check();
    expect(await theme()).toBe("light");
    await screenshot(page, "shell-settings-light");
    await page.getByRole("radio", { name: "Dark" }).check();
    expect(await theme()).toBe("dark");
    await page.reload();
    await page.getByRole("heading", { name: "My settings", level: 1 }).waitFor();
    expect(await theme()).toBe("dark");
    expect(await page.getByRole("radio", { name: "Dark" }).isChecked()).toBe(true);
    await page.getByText("shell-team").waitFor();
    await screenshot(page, "shell-settings-dark");
    await page.goto(`${app.url}/`);
    await page.getByRole("link", { name: "shell-reviews" }).waitFor();
    expect(await theme()).toBe("dark");
    await screenshot(page, "shell-home-dark");
    await context.close();
  });

  it("generates a new API key (shown once, working at once) and copies it with a one-second 'Copied' tooltip", async () => {
    const { context, page } = await signedInPage();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.url });
    await page.goto(`${app.url}/user-settings`);
    // The server keeps only a digest: no key is shown until a new one is generated.
    expect(await page.locator(".api-key__value").count()).toBe(0);
    await page.getByRole("button", { name: "Generate a new API key" }).click();
    await page.locator(".api-key__value").waitFor();
    await page.getByRole("button", { name: "Copy API key" }).click();
    await page.getByText("Copied", { exact: true }).waitFor();
    const key = await page.locator(".api-key__value").textContent();
    expect(key).toMatch(/^tsr\./);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    expect((await fetch(`${app.url}/api/v1/me`, { headers: { "X-Argilla-Api-Key": key! } })).status).toBe(200);
    await page.getByText("Copied", { exact: true }).waitFor({ state: "detached", timeout: 3000 });
    await context.close();
  });

  it("switches the language to German and Spanish, and keeps it after a reload", async () => {
    const { context, page } = await signedInPage();
    await page.goto(`${app.url}/user-settings`);
    await page.getByLabel("Language", { exact: true }).selectOption("de");
    await page.getByRole("heading", { name: "Meine Einstellungen", level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe("de");
    await page.reload();
    await page.getByRole("heading", { name: "Meine Einstellungen", level: 1 }).waitFor();
    await page.getByLabel("Sprache", { exact: true }).selectOption("es");
    await page.getByRole("heading", { name: "Mi configuración", level: 1 }).waitFor();
    await page.goto(`${app.url}/`);
    await page.getByRole("heading", { name: "Tus datasets" }).waitFor();
    await context.close();
  });

  it("shows 'You are offline' as a danger toast and 'You are online again' when back", async () => {
    const { context, page } = await signedInPage();
    await page.getByRole("heading", { name: "Your datasets" }).waitFor();
    await context.setOffline(true);
    const offline = page.getByRole("alert").filter({ hasText: "You are offline" });
    await offline.waitFor();
    expect(await offline.getAttribute("class")).toContain("toast--danger");
    await context.setOffline(false);
    await page.getByRole("status").filter({ hasText: "You are online again" }).waitFor();
    expect(await offline.count()).toBe(0);
    await context.close();
  });
});
