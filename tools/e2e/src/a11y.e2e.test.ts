import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser, screenshot, signIn, startApp, type RunningApp } from "./harness.js";
import { audit } from "./axe.js";
import { addEveryQuestionSchema, everyQuestionRecords, ownerApi, signedInPage, type Api } from "./seed.js";

/**
 * Accessibility quality bar (issue 6) in real Chromium:
 * - axe-core (injected from node_modules) on sign-in, home, user settings and the annotation page (focus and bulk view),
 *   in the light and the dark theme; serious and critical violations fail, colour contrast (WCAG AA) included;
 * - keyboard: Tab reaches every interactive control of home and the annotation page, each with a visible focus indicator.
 */

let app: RunningApp;
let browser: Browser;
let api: Api;
let datasetId = "";

/** A dataset with every question type (like annotation.e2e.test.ts), a suggestion, markdown, vectors and metadata. */
async function seed(): Promise<void> {
  api = await ownerApi(app);
  const ws = await api<{ id: string }>("POST", "/workspaces", { name: "a11y-team" });
  const ds = await api<{ id: string }>("POST", "/datasets", {
    name: "a11y-every-question",
    workspace_id: ws.id,
    guidelines: "# Guidelines\nBe **kind** and read the [docs](https://example.org).",
  });
  datasetId = ds.id;
  const { sentimentId } = await addEveryQuestionSchema(api, ds.id, { describe: true });
  await api("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "length",
    title: "Length",
    settings: { type: "integer" },
    visible_for_annotators: true,
  }).catch(() => undefined);
  await api("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "source",
    title: "Source",
    settings: { type: "terms" },
    visible_for_annotators: true,
  });
  await api("PUT", `/datasets/${ds.id}/publish`);
  // metadata values, so the filters panel has terms and a range to show
  const items = (everyQuestionRecords(12, "a11y-", sentimentId, () => true) as Array<Record<string, unknown>>).map((item, i) => ({
    ...item,
    metadata: { length: i + 1, source: i % 2 ? "web" : "email" },
  }));
  await api("POST", `/datasets/${ds.id}/records/bulk`, { items });
}

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  await seed();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

type Theme = "light" | "dark";

async function newContext(theme: Theme): Promise<BrowserContext> {
  // The app's default theme is "system": the context's colour scheme picks light or dark. bypassCSP lets
  // addScriptTag inject axe-core under the app's strict Content-Security-Policy (script-src 'self').
  return browser.newContext({ locale: "en-US", colorScheme: theme, viewport: { width: 1400, height: 1000 }, bypassCSP: true });
}

describe.each<Theme>(["light", "dark"])("axe-core audit in the %s theme", (theme) => {
  it("finds no serious or critical violations on sign-in, home and user settings", async () => {
    const context = await newContext(theme);
    const page = await context.newPage();
    await page.goto(`${app.url}/sign-in`);
    await page.getByLabel("Username").waitFor();
    expect(await page.evaluate(() => document.documentElement.getAttribute("data-theme"))).toBe(theme);
    const found = await audit(page, `sign-in-${theme}`);
    // the error text after a wrong password
    await signIn(page, app, "owner", "wrong-password");
    await page.getByText("Wrong username or password. Try again").waitFor();
    found.push(...(await audit(page, `sign-in-error-${theme}`)));
    await page.getByLabel("Password").fill(app.ownerPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${app.url}/`);
    await page.getByRole("link", { name: "a11y-every-question" }).waitFor();
    await page.getByRole("table").getByRole("progressbar").first().waitFor();
    found.push(...(await audit(page, `home-${theme}`)));
    await page.getByRole("button", { name: "User menu" }).click();
    await page.getByRole("menuitem", { name: "My settings" }).waitFor();
    found.push(...(await audit(page, `home-menu-${theme}`)));
    await page.getByRole("menuitem", { name: "My settings" }).click();
    await page.getByRole("heading", { name: "My settings", level: 1 }).waitFor();
    await page.getByText("a11y-team").waitFor();
    found.push(...(await audit(page, `user-settings-${theme}`)));
    // a danger toast and the 404 page
    await context.setOffline(true);
    await page.getByRole("alert").filter({ hasText: "You are offline" }).waitFor();
    found.push(...(await audit(page, `toast-offline-${theme}`)));
    await context.setOffline(false);
    await page.goto(`${app.url}/no/such/page`);
    await page.getByRole("heading", { name: "This page could not be found" }).waitFor();
    found.push(...(await audit(page, `not-found-${theme}`)));
    await context.close();
    expect(found).toEqual([]);
  }, 90_000);

  it("finds no serious or critical violations on the annotation page in focus and bulk view", async () => {
    const context = await newContext(theme);
    const page = await signedInPage(context, app);
    await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode`);
    await page.getByRole("group", { name: /Sentiment/ }).waitFor();
    // the first pending record (an earlier test may have saved a draft of record 1)
    await page
      .getByText(/Ada Lovelace lived in London|Record number \d+ about/)
      .first()
      .waitFor();
    const found = await audit(page, `annotation-focus-${theme}`);
    // a span drawn and a text answer typed: badges and the markdown preview are audited too
    await page.getByRole("textbox", { name: "Comment" }).fill("Looks **fine**");
    await page
      .getByRole("button", { name: /Shortcuts|Keyboard/i })
      .first()
      .click();
    await page.getByRole("dialog").waitFor();
    found.push(...(await audit(page, `annotation-shortcuts-${theme}`)));
    await page.keyboard.press("Escape");
    await page.getByRole("dialog").waitFor({ state: "detached" });
    // text search (highlights, filter chips with remove buttons), then similarity search (score badge)
    await page.getByRole("searchbox", { name: "Search records" }).fill("cats");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page
      .getByText(/Record number \d+ about cats/)
      .first()
      .waitFor();
    found.push(...(await audit(page, `annotation-search-${theme}`)));
    await page.getByRole("button", { name: "Reset" }).first().click();
    await page.waitForURL((url) => !url.search.includes("_search"));
    await page.getByRole("button", { name: "Find similar" }).click();
    await page.getByRole("spinbutton", { name: "Record number" }).fill("3");
    await page.getByRole("button", { name: "Search", exact: true }).last().click();
    await page.getByText(/Similarity Score \d+(\.\d)?%/).waitFor();
    found.push(...(await audit(page, `annotation-similar-${theme}`)));
    // the filters panel: a terms list with a badge, a range slider, the suggestion choices, the sort popover
    await page.getByRole("button", { name: "Clear similarity" }).click();
    await page.waitForURL((url) => !url.search.includes("_similarity"));
    await page.getByRole("button", { name: /^Filters/ }).click();
    await page.locator(".filter-trigger", { hasText: "Metadata" }).click();
    const metadata = page.getByRole("dialog", { name: "Metadata" });
    await metadata.locator(".subject-list__item", { hasText: "Source" }).click();
    await metadata.getByRole("checkbox", { name: "web" }).check();
    await page.locator(".filter-badge", { hasText: "Source: web" }).waitFor();
    found.push(...(await audit(page, `annotation-filter-terms-${theme}`)));
    await metadata.getByRole("button", { name: "Back to the list" }).click();
    await metadata.locator(".subject-list__item", { hasText: "Length" }).click();
    await metadata.getByRole("slider", { name: "Minimum of Length" }).waitFor();
    found.push(...(await audit(page, `annotation-filter-range-${theme}`)));
    await page.keyboard.press("Escape");
    await page.locator(".filter-trigger", { hasText: "Suggestions" }).click();
    await page.getByRole("dialog", { name: "Suggestions" }).locator(".subject-list__item", { hasText: "Sentiment" }).click();
    await page.getByRole("dialog", { name: "Suggestions" }).getByRole("radio", { name: "Agent" }).check();
    found.push(...(await audit(page, `annotation-filter-suggestion-${theme}`)));
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: /^Sort/ }).click();
    await page.getByRole("dialog", { name: "Sort" }).getByRole("combobox", { name: "Sort" }).selectOption({ label: "Length" });
    await page.getByRole("button", { name: "+ Add another field" }).waitFor();
    found.push(...(await audit(page, `annotation-sort-${theme}`)));
    await page.keyboard.press("Escape");
    await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode?_page=1~50`);
    await page.getByRole("checkbox", { name: "Select all" }).waitFor();
    await page
      .getByText(/Record number \d+ about/)
      .first()
      .waitFor();
    found.push(...(await audit(page, `annotation-bulk-${theme}`)));
    await page.getByRole("checkbox", { name: "Select all" }).check();
    await page
      .getByText(/records selected/)
      .first()
      .waitFor();
    found.push(...(await audit(page, `annotation-bulk-selected-${theme}`)));
    await context.close();
    expect(found).toEqual([]);
  }, 90_000);
});

describe.each<Theme>(["light", "dark"])("axe-core audit on a phone-sized screen in the %s theme", (theme) => {
  it("finds no serious or critical violations on home and the annotation page", async () => {
    const context = await browser.newContext({
      locale: "en-US",
      colorScheme: theme,
      viewport: { width: 390, height: 844 },
      bypassCSP: true,
    });
    const page = await signedInPage(context, app);
    await page.getByRole("link", { name: "a11y-every-question" }).waitFor();
    const found = await audit(page, `home-phone-${theme}`);
    await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode`);
    await page.getByRole("group", { name: /Sentiment/ }).waitFor();
    found.push(...(await audit(page, `annotation-phone-${theme}`)));
    await context.close();
    expect(found).toEqual([]);
  }, 90_000);
});

interface TabReport {
  unreached: string[];
  noIndicator: string[];
  reached: number;
  candidates: number;
}

/**
 * Marks every visible, enabled interactive control, presses Tab until focus comes back round, and reports the controls
 * never focused and the focused ones without a visible focus indicator (computed outline or box-shadow).
 * A native radio group counts as one stop (Tab enters a group once; arrows move inside it).
 */
async function tabThrough(page: Page): Promise<TabReport> {
  const candidates = await page.evaluate(() => {
    const selector =
      "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]:not([tabindex='-1']), [contenteditable='true']";
    const seenGroups = new Set<string>();
    let n = 0;
    for (const el of Array.from(document.querySelectorAll<HTMLElement>(selector))) {
      el.removeAttribute("data-tab-id");
      if ((el as HTMLButtonElement).disabled || el.closest("[inert], [aria-hidden='true']")) continue;
      if (el.tabIndex < 0) continue;
      if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
      const rect = el.getBoundingClientRect();
      if (rect.width === 0 && rect.height === 0) continue;
      if (el instanceof HTMLInputElement && el.type === "radio" && el.name) {
        if (seenGroups.has(el.name)) {
          el.setAttribute("data-tab-group", el.name);
          continue;
        }
        seenGroups.add(el.name);
        el.setAttribute("data-tab-group", el.name);
      }
      el.setAttribute("data-tab-id", String(n++));
    }
    return n;
  });
  const reached = new Set<string>();
  const noIndicator: string[] = [];
  let first: string | null = null;
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  for (let step = 0; step < candidates * 2 + 20; step++) {
    await page.keyboard.press("Tab");
    const state = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const describe = (e: Element) =>
        `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}${e.className && typeof e.className === "string" ? `.${e.className.trim().split(/\s+/).join(".")}` : ""} "${(e.getAttribute("aria-label") ?? e.textContent ?? "").trim().slice(0, 40)}"`;
      const visible = (e: Element) => {
        const s = getComputedStyle(e);
        const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0;
        const shadow = s.boxShadow !== "none" && s.boxShadow !== "";
        return outline || shadow;
      };
      let id = el.getAttribute("data-tab-id");
      const group = el.getAttribute("data-tab-group");
      if (id === null && group)
        id = document.querySelector(`[data-tab-group="${CSS.escape(group)}"][data-tab-id]`)?.getAttribute("data-tab-id") ?? null;
      // a visually hidden native input shows its focus on the label around it
      const indicator = visible(el) || (el.matches(".visually-hidden, input") && !!el.closest("label") && visible(el.closest("label")!));
      return { id: id ?? `untracked ${describe(el)}`, indicator, name: describe(el) };
    });
    if (!state) continue;
    if (first === null) first = state.id;
    else if (state.id === first) break;
    reached.add(state.id);
    if (!state.indicator) noIndicator.push(state.name);
  }
  const unreached = await page.evaluate(
    (ids) =>
      Array.from(document.querySelectorAll<HTMLElement>("[data-tab-id]"))
        .filter((el) => !ids.includes(el.getAttribute("data-tab-id")!))
        .map(
          (e) =>
            `${e.tagName.toLowerCase()}${e.className && typeof e.className === "string" ? `.${e.className.trim().split(/\s+/).join(".")}` : ""} "${(e.getAttribute("aria-label") ?? e.textContent ?? "").trim().slice(0, 40)}"`,
        ),
    [...reached],
  );
  return { unreached, noIndicator: [...new Set(noIndicator)], reached: reached.size, candidates };
}

describe("keyboard reachability", () => {
  it("reaches every control on home with a visible focus indicator", async () => {
    const context = await newContext("light");
    const page = await signedInPage(context, app);
    await page.getByRole("link", { name: "a11y-every-question" }).waitFor();
    await page.getByRole("table").getByRole("progressbar").first().waitFor();
    const report = await tabThrough(page);
    console.info(`tab stops: ${report.reached} of ${report.candidates} controls`);
    await context.close();
    expect(report.candidates).toBeGreaterThan(10);
    expect({ unreached: report.unreached, noIndicator: report.noIndicator }).toEqual({ unreached: [], noIndicator: [] });
  }, 90_000);

  it("notices a control whose focus indicator is removed (the check can fail)", async () => {
    const context = await newContext("light");
    const page = await signedInPage(context, app);
    await page.getByRole("link", { name: "a11y-every-question" }).waitFor();
    await page.addStyleTag({ content: ".sort-button:focus-visible { outline: none !important; box-shadow: none !important; }" });
    const report = await tabThrough(page);
    await context.close();
    expect(report.noIndicator.filter((name) => name.includes("sort-button"))).toHaveLength(5);
  }, 90_000);

  it.each([
    ["focus", ""],
    ["bulk", "?_page=1~50"],
  ])(
    "reaches every control on the annotation page (%s view) with a visible focus indicator",
    async (_view, query) => {
      const context = await newContext("dark");
      const page = await signedInPage(context, app);
      await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode${query}`);
      await page.getByRole("group", { name: /Sentiment/ }).waitFor();
      await page
        .getByText(/Ada Lovelace lived in London|Record number \d+ about/)
        .first()
        .waitFor();
      const report = await tabThrough(page);
      console.info(`tab stops: ${report.reached} of ${report.candidates} controls`);
      await context.close();
      expect(report.candidates).toBeGreaterThan(15);
      expect({ unreached: report.unreached, noIndicator: report.noIndicator }).toEqual({ unreached: [], noIndicator: [] });
    },
    90_000,
  );
});
