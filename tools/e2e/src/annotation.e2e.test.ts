import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser, screenshot, startApp, type RunningApp } from "./harness.js";
import { addEveryQuestionSchema, everyQuestionRecords, ownerApi, signedInPage, type Api } from "./seed.js";

/** Annotation screen end to end: a dataset with every question type, seeded over the HTTP API. */
let app: RunningApp;
let browser: Browser;
let api: Api;
let datasetId = "";
const recordIds: string[] = [];

interface StoredResponse {
  status: string;
  values: Record<string, { value: unknown }>;
}
async function ownerResponse(recordId: string): Promise<StoredResponse | undefined> {
  const record = await api<{ responses?: StoredResponse[] }>("GET", `/records/${recordId}`);
  return record.responses?.[0];
}

async function seed(): Promise<void> {
  api = await ownerApi(app);
  const ws = await api<{ id: string }>("POST", "/workspaces", { name: "annotation-e2e" });
  const ds = await api<{ id: string }>("POST", "/datasets", {
    name: "every-question",
    workspace_id: ws.id,
    guidelines: "# Guidelines\nBe **kind**.",
  });
  datasetId = ds.id;
  const { sentimentId } = await addEveryQuestionSchema(api, ds.id);
  await api("PUT", `/datasets/${ds.id}/publish`);
  const items = everyQuestionRecords(60, "ext-", sentimentId, (i) => i === 0);
  const created = await api<{ items: Array<{ id: string }> }>("POST", `/datasets/${ds.id}/records/bulk`, { items });
  recordIds.push(...created.items.map((r) => r.id));
}

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  await seed();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function openPage(context: BrowserContext, query = ""): Promise<Page> {
  const page = await signedInPage(context, app);
  await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode${query}`);
  await page.getByRole("group", { name: /Sentiment/ }).waitFor();
  return page;
}

describe("annotation screen in real Chromium", () => {
  it("annotates every question type in focus view (mouse spans, drag and drop and keyboard ranking), saves a draft, submits and discards", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await openPage(context);
    // suggestion prefill with score and agent; required asterisk and optional marks
    const positive = page.getByRole("radio", { name: /Positive/ });
    await expect.poll(() => positive.getAttribute("aria-checked")).toBe("true");
    expect(await page.getByText("0.9").first().isVisible()).toBe(true);
    expect(await page.getByTitle("Required response").count()).toBeGreaterThan(0);
    expect(await page.getByText("(optional)").count()).toBeGreaterThan(0);

    // label by number key, multi-label with +N
    await page.getByRole("group", { name: /Sentiment/ }).focus();
    await page.keyboard.press("2");
    await expect.poll(() => page.getByRole("radio", { name: /Negative/ }).getAttribute("aria-checked")).toBe("true");
    await page.getByRole("button", { name: "+2" }).click();
    await page.getByRole("checkbox", { name: /science/ }).click();
    // rating by key
    await page.getByRole("group", { name: /Quality/ }).focus();
    await page.keyboard.press("4");
    // ranking: drag Answer B into slot 1, then keyboard: Answer A -> 2, Answer C -> 3
    const cardB = page.locator('[data-rank-card="b"]');
    const slot1 = page.locator('[data-rank-zone="slot-1"]');
    const from = (await cardB.boundingBox())!;
    const to = (await slot1.boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + 20, from.y + 10, { steps: 5 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 10 });
    await page.mouse.up();
    await page.locator('[data-rank-zone="slot-1"] [data-rank-card="b"]').waitFor();
    await page.locator('[data-rank-card="a"]').focus();
    await page.keyboard.press("2");
    await page.locator('[data-rank-zone="slot-2"] [data-rank-card="a"]').waitFor();
    await page.locator('[data-rank-card="c"]').focus();
    await page.keyboard.press("3");
    await page.locator('[data-rank-zone="slot-3"] [data-rank-card="c"]').waitFor();
    // text with markdown
    await page.getByRole("textbox", { name: "Comment" }).fill("Looks **fine**");
    // span with the mouse: pick Person, drag over part of "Lovelace" -> snaps to the word
    const spanText = page.getByTestId("span-text-entities");
    const rect = async (start: number, end: number) =>
      spanText.evaluate(
        (el, [s, e]) => {
          const range = document.createRange();
          range.setStart(el.firstChild!, s!);
          range.setEnd(el.firstChild!, e!);
          const r = range.getBoundingClientRect();
          return { x: r.x, y: r.y, w: r.width, h: r.height };
        },
        [start, end],
      );
    await page.evaluate(() => window.scrollTo(0, 0));
    const lovelace = await rect(5, 9); // "ovel"
    await page.mouse.move(lovelace.x + 1, lovelace.y + lovelace.h / 2);
    await page.mouse.down();
    await page.mouse.move(lovelace.x + lovelace.w - 1, lovelace.y + lovelace.h / 2, { steps: 5 });
    await page.mouse.up();
    await page.locator('.span-badge[data-span="4-12"]').waitFor();
    await page.getByRole("radio", { name: /Place/ }).click();
    await page.evaluate(() => window.scrollTo(0, 0));
    const london = await rect(22, 28);
    await page.mouse.move(london.x + 2, london.y + london.h / 2);
    await page.mouse.down();
    await page.mouse.move(london.x + london.w - 2, london.y + london.h / 2, { steps: 5 });
    await page.mouse.up();
    await page
      .locator('.span-badge[data-span="22-28"]')
      .waitFor({ timeout: 5000 })
      .catch(async (e) => {
        await screenshot(page, "annotation-span-debug");
        throw new Error(`${String(e)} ${JSON.stringify(london)} ${await page.locator(".span-text").innerHTML()}`);
      });

    // Save as draft with Ctrl+S
    await page.locator("body").click({ position: { x: 5, y: 300 } });
    await page.keyboard.press("Control+s");
    await expect.poll(async () => (await ownerResponse(recordIds[0]!))?.status, { timeout: 10_000 }).toBe("draft");
    await screenshot(page, "annotation-focus-all-questions");

    // Submit with Enter; the stored values match every answer
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await ownerResponse(recordIds[0]!))?.status, { timeout: 10_000 }).toBe("submitted");
    const values = (await ownerResponse(recordIds[0]!))!.values;
    expect(values["sentiment"]?.value).toBe("negative");
    expect(values["topics"]?.value).toEqual(["science"]);
    expect(values["quality"]?.value).toBe(4);
    expect(values["preference"]?.value).toEqual([
      { value: "a", rank: 2 },
      { value: "b", rank: 1 },
      { value: "c", rank: 3 },
    ]);
    expect(values["comment"]?.value).toBe("Looks **fine**");
    expect(values["entities"]?.value).toEqual([
      { start: 4, end: 12, label: "person" },
      { start: 22, end: 28, label: "place" },
    ]);

    // next record shows; discard with Backspace
    await page.getByText("Record number 2 about cats").waitFor();
    await page.keyboard.press("Backspace");
    await expect.poll(async () => (await ownerResponse(recordIds[1]!))?.status, { timeout: 10_000 }).toBe("discarded");
    await page.getByText("Record number 3 about dogs").waitFor();

    // autosave a draft after a change
    await page.getByRole("radio", { name: /Neutral/ }).click();
    await page.getByText("Saved").waitFor({ timeout: 10_000 });
    expect((await ownerResponse(recordIds[2]!))?.values["sentiment"]?.value).toBe("neutral");
    await context.close();
  }, 120_000);

  it("searches text with highlighted matches and finds similar records, keeping the state in the URL", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await openPage(context);
    await page.getByRole("searchbox", { name: "Search records" }).fill("cats");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/_search=cats/);
    await page
      .getByText(/Record number \d+ about cats/)
      .first()
      .waitFor();
    await expect
      .poll(() =>
        page.evaluate(
          () => (CSS as unknown as { highlights: Map<string, Set<unknown>> }).highlights.get("search-text-highlight-text")?.size ?? 0,
        ),
      )
      .toBeGreaterThan(0);
    await page.getByRole("button", { name: "Reset" }).first().click();
    await page.waitForURL((url) => !url.search.includes("_search"));

    await page.getByRole("button", { name: "Find similar" }).click();
    await page.getByRole("spinbutton", { name: "Record number" }).fill("5");
    await page.getByRole("button", { name: "Search", exact: true }).last().click();
    await page.waitForURL(/_similarity=/);
    await page.getByText(/Similarity Score \d+(\.\d)?%/).waitFor();
    await page.getByText("Record 1 of 5").waitFor();
    await context.close();
  }, 60_000);

  it("annotates 50 records at once in bulk view, in chunks, and the server stores every response", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await openPage(context, "?_page=1~50");
    await page.getByRole("checkbox", { name: "Select all" }).check();
    await page.getByText("50 records selected").waitFor();
    await page.getByRole("radio", { name: /Positive/ }).click();
    await page.getByRole("button", { name: /Submit/ }).click();
    await expect
      .poll(
        async () => {
          const search = await api<{ total: number }>("POST", `/me/datasets/${datasetId}/records/search?limit=1`, {
            filters: { and: [{ type: "terms", scope: { entity: "response", property: "status" }, values: ["submitted"] }] },
          });
          return search.total;
        },
        { timeout: 20_000 },
      )
      .toBe(51);
    await screenshot(page, "annotation-bulk-after-submit");
    await context.close();
  }, 60_000);

  it("shows the next record at once after Submit; a refused background save (4xx) is reported and the answers are kept for a retry", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await openPage(context);
    const shown = () => page.locator("article[data-record-id]").getAttribute("data-record-id");
    const first = (await shown())!;
    let failures = 0;
    await page.route(/\/api\/v1\/records\/[^/]+\/responses$/, async (route) => {
      if (route.request().method() === "POST" && failures === 0) {
        failures++;
        // refused for good (a 5xx or no connection only waits in the outbox: tools/e2e/src/offline.e2e.test.ts)
        await route.fulfill({ status: 422, contentType: "application/json", body: JSON.stringify({ detail: "refused" }) });
      } else await route.continue();
    });
    await page.getByRole("radio", { name: /Negative/ }).click();
    await page.getByRole("button", { name: /Submit/ }).click();
    await expect.poll(shown).not.toBe(first);
    // the user is told, and goes back to the record with the answer given
    const failed = page.locator(".failed-saves");
    await failed.getByText(/was not saved/).waitFor({ timeout: 10_000 });
    expect((await ownerResponse(first))?.status).toBeUndefined();
    await failed.getByRole("button", { name: /Go to record/ }).click();
    await expect.poll(shown).toBe(first);
    await page.locator(".status-badge--failed").waitFor();
    expect(await page.getByRole("radio", { name: /Negative/ }).getAttribute("aria-checked")).toBe("true");
    await page.getByRole("button", { name: /Submit/ }).click();
    await expect.poll(async () => (await ownerResponse(first))?.status, { timeout: 10_000 }).toBe("submitted");
    expect((await ownerResponse(first))?.values["sentiment"]?.value).toBe("negative");
    await failed.waitFor({ state: "detached", timeout: 10_000 });
    await context.close();
  }, 120_000);
});
