import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchBrowser, startApp, type RunningApp } from "./harness.js";
import { addEveryQuestionSchema, ownerApi, signedInPage } from "./seed.js";

/**
 * A text search whose total is past the server's count bound (issue 31; TESSERA_TEXT_TOTAL_BOUND=5
 * here, 10,000 by default): the annotation page shows "N+" (paging on past it: the view model's test).
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
  it("shows 'Record 1 of 10+' (the window of 10 the page asks for) for a common word, an exact total for a rare one", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await signedInPage(context, app);
    const position = page.locator(".record-nav__position");
    await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode?_search=cats`);
    await page.getByRole("group", { name: /Sentiment/ }).waitFor();
    await expect.poll(() => position.textContent()).toBe("Record 1 of 10+");
    await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode?_search=dogs`);
    await page.getByRole("group", { name: /Sentiment/ }).waitFor();
    await expect.poll(() => position.textContent()).toBe("Record 1 of 3");
    await context.close();
  }, 120_000);
});
