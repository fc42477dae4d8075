import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, startApp, type RunningApp } from "./harness.js";
import { addEveryQuestionSchema, ownerApi, signedInPage } from "./seed.js";

/**
 * A text search whose total is past the server's count bound (issue 31; TESSERA_TEXT_TOTAL_BOUND=5
 * here, 10,000 by default): the annotation page shows "N+" and pages on past it.
 * 12 records match "cats", 3 "dogs".
 */
let app: RunningApp;
let browser: Browser;
let datasetId = "";

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp({ TESSERA_TEXT_TOTAL_BOUND: "5" }), launchBrowser()]);
  const api = await ownerApi(app);
  const ws = await api<{ id: string }>("POST", "/workspaces", { name: "text-total-e2e" });
  const ds = await api<{ id: string }>("POST", "/datasets", { name: "text-total", workspace_id: ws.id });
  datasetId = ds.id;
  await addEveryQuestionSchema(api, ds.id);
  await api("PUT", `/datasets/${ds.id}/publish`);
  const items = Array.from({ length: 15 }, (_, i) => ({ fields: { text: `Story ${i + 1} about ${i < 12 ? "cats" : "dogs"}` } }));
  await api("POST", `/datasets/${ds.id}/records/bulk`, { items });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe("text search total past the count bound", () => {
  it("shows 'Record 1 of 10+' (the window of 10 the page asks for), pages on past it to the last match, where the total is exact", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await signedInPage(context, app);
    const position = page.locator(".record-nav__position");
    await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode`);
    await page.getByRole("group", { name: /Sentiment/ }).waitFor();
    const search = async (word: string) => {
      await page.getByRole("searchbox", { name: "Search records" }).fill(word);
      await page.getByRole("button", { name: "Search", exact: true }).click();
      await page.waitForURL(new RegExp(`_search=${word}`));
    };
    await search("dogs");
    await expect.poll(() => position.textContent()).toBe("Record 1 of 3");
    await search("cats");
    await expect.poll(() => position.textContent()).toBe("Record 1 of 10+");
    const next = page.getByRole("button", { name: "Next (→)" });
    for (let i = 2; i <= 12; i++) {
      await next.click();
      await expect.poll(() => position.textContent()).toMatch(new RegExp(`^Record ${i} of (10\\+|12)$`));
    }
    await expect.poll(() => position.textContent()).toBe("Record 12 of 12");
    await expect.poll(() => next.isDisabled()).toBe(true);
    await context.close();
  }, 120_000);
});
