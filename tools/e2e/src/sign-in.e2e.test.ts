import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, screenshot, signIn, startApp, type RunningApp } from "./harness.js";

let app: RunningApp;
let browser: Browser;
beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe("walking skeleton in real Chromium", () => {
  it("refuses a wrong password with the spec's message, then signs in and shows the home page", async () => {
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${app.url}/`);
    await page.waitForURL(`${app.url}/sign-in`);
    await signIn(page, app, "owner", "not-the-password");
    await expect.poll(() => page.getByRole("alert").textContent()).toBe("Wrong username or password. Try again");

    await signIn(page, app);
    await page.waitForURL(`${app.url}/`);
    await page.getByRole("heading", { name: "Your datasets" }).waitFor();
    await page.getByText("None yet").waitFor();
    await screenshot(page, "home-empty-light");
    await context.close();
  });

  it("remembers the wanted path as redirect, honours it after login, and logs out from the avatar menu", async () => {
    const context = await browser.newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(`${app.url}/user-settings`);
    await page.waitForURL(/\/sign-in\?redirect=%2Fuser-settings$/);
    await signIn(page, app);
    await page.waitForURL(`${app.url}/user-settings`);

    await page.goto(`${app.url}/`);
    await page.getByRole("button", { name: "User menu" }).click();
    await page.getByRole("menuitem", { name: "Log out" }).click();
    await page.waitForURL(`${app.url}/sign-in`);
    await page.goto(`${app.url}/`);
    await page.waitForURL(`${app.url}/sign-in`);
    await context.close();
  });

  it("shows the sign-in page in German for a German browser", async () => {
    const context = await browser.newContext({ locale: "de-DE" });
    const page = await context.newPage();
    await page.goto(`${app.url}/sign-in`);
    await page.getByRole("heading", { name: "Anmelden" }).waitFor();
    await context.close();
  });
});
