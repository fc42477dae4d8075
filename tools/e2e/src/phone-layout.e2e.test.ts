import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
// The fake hub is consumed as source (vitest compiles it), like dataset-creation.e2e.test.ts does.
import { startFakeHub, FAKE_HUB_TOKEN, type FakeHub } from "../../fake-hub/src/index.js";
import { launchBrowser, screenshot, startApp, type RunningApp } from "./harness.js";
import { accessToken, addEveryQuestionSchema, apiWithToken, ownerApi, signedInPage, type Api } from "./seed.js";

/**
 * Every screen fits a phone (390 x 844) without horizontal scrolling, in the light and the dark theme:
 * `document.documentElement.scrollWidth <= innerWidth` on sign-in, home, My settings, the 404 page, the annotation page
 * (focus view, filters panel with an open popover and a badge, sort popover, shortcuts, bulk view), every dataset settings
 * tab, dataset creation (from the Hub and from a file), review mode and the agreement page (with two annotators' answers, so the responses table and the
 * pairs matrix show). On the annotation page the form goes under the record and the filters stay in their panel; the
 * header scrolls away with the page (its actions on a row of their own) and a new record never scrolls the search away.
 * The data is made to be wide: long dataset and workspace names, a long unbroken token in a record, markdown code.
 */
let app: RunningApp;
let hub: FakeHub;
let browser: Browser;
let api: Api;
let datasetId = "";
const PHONE = { width: 390, height: 844 };
const LONG_NAME = "customer-support-conversations-multilingual-2026-q3-review";

async function seed(): Promise<void> {
  api = await ownerApi(app);
  const ws = await api<{ id: string }>("POST", "/workspaces", { name: "research-and-evaluation-team-europe" });
  const ds = await api<{ id: string }>("POST", "/datasets", {
    name: LONG_NAME,
    workspace_id: ws.id,
    guidelines: "# Guidelines\n```\nconst aVeryLongLineOfCodeThatWouldOverflowAPhoneScreen = computeSomething(withArguments);\n```",
  });
  datasetId = ds.id;
  const { sentimentId } = await addEveryQuestionSchema(api, ds.id, { describe: true });
  await api("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "length",
    title: "Length of the review in words",
    settings: { type: "integer" },
    visible_for_annotators: true,
  });
  await api("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "source",
    title: "Source",
    settings: { type: "terms" },
    visible_for_annotators: true,
  });
  await api("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "score",
    title: "Score",
    settings: { type: "float" },
    visible_for_annotators: true,
  });
  await api("PUT", `/datasets/${ds.id}/publish`);
  const items = Array.from({ length: 12 }, (_, i) => ({
    fields: {
      text:
        i === 0
          ? `See https://example.org/${"a-very-long-unbroken-path-segment".repeat(4)} for the ${"supercalifragilistic".repeat(3)} details.`
          : `Record number ${i + 1} about ${i % 2 ? "cats" : "dogs"} and a rather long sentence to wrap.`,
      notes: "```\nprint('a long line of code in a markdown field that must scroll inside its box, not the page')\n```",
    },
    metadata: { length: 10 + i, source: i % 2 ? "web-forum-thread-with-a-long-name" : "email", score: i / 12 },
    suggestions: [{ question_id: sentimentId, value: "positive", score: 0.87, agent: "a-model-with-a-rather-long-agent-name-v2" }],
  }));
  await api("POST", `/datasets/${ds.id}/records/bulk`, { items });
  // two annotators answer the last three records (they complete and leave the owner's pending queue), differently on
  // two: review mode and agreement have data to show
  const records = (await api<{ items: Array<{ id: string }> }>("GET", `/datasets/${ds.id}/records?limit=20`)).items.slice(-3);
  for (const [n, username] of ["annotator-with-a-long-username-one", "annotator-with-a-long-username-two"].entries()) {
    const user = await api<{ id: string }>("POST", "/users", {
      username,
      first_name: username,
      password: "annotator-pw-1",
      role: "annotator",
    });
    await api("POST", `/workspaces/${ws.id}/users`, { user_id: user.id });
    const annotator = apiWithToken(app, await accessToken(app, username, "annotator-pw-1"));
    for (const [i, record] of records.entries()) {
      const sentiment = i === 0 || n === 0 ? "positive" : "negative";
      await annotator("POST", `/records/${record.id}/responses`, {
        status: "submitted",
        values: {
          sentiment: { value: sentiment },
          quality: { value: 1 + ((i + n) % 5) },
          comment: { value: `A comment ${"that goes on ".repeat(6)}` },
        },
      });
    }
  }
  // a second dataset: the home table has more than one row
  await api("POST", "/datasets", { name: "short", workspace_id: ws.id });
}

beforeAll(async () => {
  hub = await startFakeHub({ port: 0 });
  [app, browser] = await Promise.all([startApp({ TESSERA_HUB_DATASETS_SERVER_URL: hub.url, HF_TOKEN: FAKE_HUB_TOKEN }), launchBrowser()]);
  await seed();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await hub?.close();
});

type Theme = "light" | "dark";

/** How far the page is wider than the screen (0 when it fits), after fonts and a frame. */
async function overflow(page: Page): Promise<{ scrollWidth: number; innerWidth: number; widest: string }> {
  await page.evaluate(() => document.fonts.ready);
  await page.waitForTimeout(150);
  return page.evaluate(() => {
    // the element reaching furthest right, to say what overflows when something does
    let widest = "";
    let right = window.innerWidth;
    for (const el of Array.from(document.querySelectorAll<HTMLElement>("body *"))) {
      const r = el.getBoundingClientRect();
      if (r.right > right + 0.5) {
        right = r.right;
        widest = `${el.tagName.toLowerCase()}.${String(el.className).split(" ").join(".")} (${Math.round(r.right)} px)`;
      }
    }
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, widest };
  });
}

/** Checks one screen; returns a readable failure (with a screenshot) or nothing. */
async function fits(page: Page, name: string): Promise<string[]> {
  const o = await overflow(page);
  if (o.scrollWidth <= o.innerWidth) return [];
  await screenshot(page, `phone-${name}`);
  return [`${name}: scrollWidth ${o.scrollWidth} > innerWidth ${o.innerWidth}; widest: ${o.widest}`];
}

/** Whether the element's centre is on screen and not covered (by a sticky header, say). */
async function onTop(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (y < 0 || y > window.innerHeight) return false;
    const hit = document.elementFromPoint(x, y);
    return hit === el || el.contains(hit);
  });
}

/** Whether the element keeps a margin from every edge of the screen (a dialog that does not touch the sides). */
async function inset(page: Page, selector: string): Promise<boolean> {
  return page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.left >= 8 && r.top >= 8 && r.right <= window.innerWidth - 8 && r.bottom <= window.innerHeight - 8;
  });
}

async function phone(theme: Theme): Promise<BrowserContext> {
  // not isMobile: a mobile viewport widens itself to the content, which would hide the overflow this test looks for
  return browser.newContext({ locale: "en-US", colorScheme: theme, viewport: PHONE });
}

describe.each<Theme>(["light", "dark"])("at 390 px in the %s theme", (theme) => {
  it("sign-in, home, My settings, the 404 page, dataset settings (every tab), dataset creation (Hub and file), review mode and agreement fit the screen", async () => {
    const context = await phone(theme);
    const anonymous = await context.newPage();
    await anonymous.goto(`${app.url}/sign-in`);
    await anonymous.getByLabel("Username").waitFor();
    expect(await anonymous.evaluate(() => document.documentElement.getAttribute("data-theme"))).toBe(theme);
    const found = await fits(anonymous, `sign-in-${theme}`);
    await anonymous.close();
    const page = await signedInPage(context, app);
    await page.getByRole("link", { name: LONG_NAME }).waitFor();
    await page.getByRole("table").getByRole("progressbar").first().waitFor();
    found.push(...(await fits(page, `home-${theme}`)));
    // the table's values keep their column names on a phone
    expect(
      await page
        .getByRole("table")
        .locator("td[data-label='Workspace']")
        .first()
        .evaluate((td) => getComputedStyle(td, "::before").content),
    ).toBe('"Workspace"');
    await page.goto(`${app.url}/user-settings`);
    await page.getByRole("heading", { name: "My settings", level: 1 }).waitFor();
    found.push(...(await fits(page, `user-settings-${theme}`)));
    await page.goto(`${app.url}/no/such/page`);
    await page.getByRole("heading", { name: "This page could not be found" }).waitFor();
    found.push(...(await fits(page, `not-found-${theme}`)));
    for (const tab of ["info", "fields", "questions", "metadata", "vectors", "danger"]) {
      await page.goto(`${app.url}/dataset/${datasetId}/settings?tab=${tab}`);
      await page.locator(`#settings-panel-${tab}`).waitFor();
      found.push(...(await fits(page, `settings-${tab}-${theme}`)));
      if (tab === "info") {
        // every card's buttons have one size, the "Records in progress" card's too
        const heights = await page
          .locator(`#settings-panel-info .settings-item__actions .button`)
          .evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().height)));
        expect(heights.length).toBeGreaterThanOrEqual(6);
        expect(new Set(heights).size).toBe(1);
      }
    }
    // review mode (the responses table scrolls inside its box) and the agreement page
    await page.goto(`${app.url}/dataset/${datasetId}/review`);
    await page.locator("table.review__responses").waitFor();
    found.push(...(await fits(page, `review-${theme}`)));
    await page.goto(`${app.url}/dataset/${datasetId}/agreement`);
    await page.getByRole("heading", { name: "Annotator pairs" }).waitFor();
    await page.locator(".agreement__matrix").waitFor();
    found.push(...(await fits(page, `agreement-${theme}`)));
    await page.goto(`${app.url}/new/${encodeURIComponent("tessera/product-reviews")}`);
    await page.getByRole("button", { name: "Create dataset" }).waitFor({ timeout: 20_000 });
    found.push(...(await fits(page, `dataset-creation-${theme}`)));
    await page.goto(`${app.url}/new-from-file`);
    await page.locator("input[type=file]").waitFor({ state: "attached" });
    found.push(...(await fits(page, `dataset-from-file-${theme}`)));
    await context.close();
    expect(found).toEqual([]);
  }, 120_000);

  it("the annotation page fits: the form under the record, the filters in their panel and popovers, bulk view", async () => {
    const context = await phone(theme);
    const page = await signedInPage(context, app);
    await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode`);
    await page.getByRole("group", { name: /Sentiment/ }).waitFor();
    await page
      .getByText(/a-very-long-unbroken-path-segment/)
      .first()
      .waitFor();
    const found = await fits(page, `annotation-focus-${theme}`);
    // the first question took the keyboard without scrolling the page: the search box is on screen, uncovered
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.closest("[data-question]") !== null)).toBe(true);
    expect(await onTop(page, "input[aria-label='Search records']")).toBe(true);
    // the header's actions (Download, Review, Agreement, Shortcuts) get one row of their own, under the breadcrumbs
    const actions = page.locator(".app-header__actions");
    const actionsBox = (await actions.boundingBox())!;
    const trailBox = (await page.locator(".app-header__trail").boundingBox())!;
    expect(actionsBox.y).toBeGreaterThanOrEqual(trailBox.y + trailBox.height);
    const tops = await actions.locator(".button").evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().top)));
    expect(tops.length).toBe(4);
    expect(new Set(tops).size).toBe(1);
    // the header scrolls away with the page instead of holding the top of a small screen
    await page.evaluate(() => window.scrollTo(0, 600));
    expect((await page.locator(".app-header").boundingBox())!.y).toBeLessThan(0);
    // the record and the form stack (the form under the record, both as wide as the screen allows)
    const record = (await page.locator("article[data-record-id]").boundingBox())!;
    const form = (await page.locator(".form-panel").boundingBox())!;
    expect(form.y).toBeGreaterThanOrEqual(record.y + record.height);
    expect(record.width).toBeGreaterThan(300);
    expect(form.width).toBeGreaterThan(300);
    // Submit at the foot of the form (on the second record: the first, the wide one, stays for the other theme): the
    // next record shows from its top (its navigation on screen)
    const shown = () => page.locator("article[data-record-id]").getAttribute("data-record-id");
    const first = await shown();
    await page.getByRole("button", { name: /^Next/ }).click();
    await expect.poll(shown).not.toBe(first);
    const before = await shown();
    await page.getByRole("radio", { name: /Negative/ }).click();
    await page.getByRole("button", { name: /Submit/ }).click();
    await expect.poll(shown).not.toBe(before);
    await expect
      .poll(() => page.locator(".record-nav").evaluate((el) => el.getBoundingClientRect().top >= 0 && el.getBoundingClientRect().top < 200))
      .toBe(true);
    await page.evaluate(() => window.scrollTo(0, 0));
    // the filters are collapsed into their panel until the Filters button opens it
    expect(await page.locator(".filters-panel").count()).toBe(0);
    await page.getByRole("button", { name: /^Filters/ }).click();
    await page.locator(".filter-trigger", { hasText: "Metadata" }).click();
    const popover = page.getByRole("dialog", { name: "Metadata" });
    await popover.locator(".subject-list__item", { hasText: "Source" }).click();
    await popover.getByRole("checkbox", { name: "web-forum-thread-with-a-long-name" }).check();
    await page.locator(".filter-badge", { hasText: "Source: web-forum-thread-with-a-long-name" }).waitFor();
    found.push(...(await fits(page, `annotation-filter-terms-${theme}`)));
    await popover.getByRole("button", { name: "Back to the list" }).click();
    await popover.locator(".subject-list__item", { hasText: "Length of the review in words" }).click();
    await popover.getByRole("slider", { name: /Minimum of/ }).waitFor();
    found.push(...(await fits(page, `annotation-filter-range-${theme}`)));
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: /^Sort/ }).click();
    await page
      .getByRole("dialog", { name: "Sort" })
      .getByRole("combobox", { name: "Sort" })
      .selectOption({ label: "Length of the review in words" });
    await page.getByRole("button", { name: "+ Add another field" }).waitFor();
    found.push(...(await fits(page, `annotation-sort-${theme}`)));
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Shortcuts" }).click();
    await page.getByRole("dialog", { name: /Keyboard shortcuts/ }).waitFor();
    found.push(...(await fits(page, `annotation-shortcuts-${theme}`)));
    expect(await inset(page, ".modal")).toBe(true);
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Download" }).click();
    await page.getByRole("dialog", { name: "Download records" }).waitFor();
    found.push(...(await fits(page, `annotation-download-${theme}`)));
    expect(await inset(page, ".modal")).toBe(true);
    await page.keyboard.press("Escape");
    await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode?_page=1~10`);
    await page.getByRole("checkbox", { name: "Select all" }).waitFor();
    await page
      .getByText(/a-very-long-unbroken-path-segment/)
      .first()
      .waitFor();
    found.push(...(await fits(page, `annotation-bulk-${theme}`)));
    await page.getByRole("checkbox", { name: "Select all" }).check();
    found.push(...(await fits(page, `annotation-bulk-selected-${theme}`)));
    await screenshot(page, `phone-annotation-bulk-${theme}`);
    await context.close();
    expect(found).toEqual([]);
  }, 120_000);
});

it("notices a screen wider than the phone (the check can fail)", async () => {
  const context = await phone("light");
  const page = await context.newPage();
  await page.goto(`${app.url}/sign-in`);
  await page.getByLabel("Username").waitFor();
  await page.evaluate(() => {
    const wide = document.createElement("div");
    wide.style.width = "600px";
    wide.style.height = "10px";
    document.body.append(wide);
  });
  const o = await overflow(page);
  await context.close();
  expect(o.scrollWidth).toBeGreaterThan(o.innerWidth);
  expect(o.widest).toContain("div");
});
