import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, screenshot, signIn, startApp, type RunningApp } from "./harness.js";
import { ownerApi, signedInPage, type Api } from "./seed.js";

/**
 * Annotation filters end to end: response and suggestion-agent filters (owner), and an annotator
 * (not the owner) using a metadata filter and 'Find similar'. Own server and dataset, seeded over the API.
 *
 * 20 records "Story N": i = N - 1; genre news for odd i, fiction for even i; sentiment suggestion by
 * model-b for odd i, model-a for even i. The owner submits records 1-4 (positive, negative, positive, neutral).
 * An optional span question 'entities' on the text has suggestions on Story 8 and Story 9 only.
 * An optional rating 'quality' (1-5): the owner rates records 1-4 with 5, 2, 4, 1. Integer metadata 'length' is
 * (i * 7) % 20 + 1 (a permutation of 1..20, so a sort by it has no ties).
 */
let app: RunningApp;
let browser: Browser;
let api: Api;
let datasetId = "";
const recordIds: string[] = [];
const ANNOTATOR = { username: "annie", password: "annie-password-1" };

async function seed(): Promise<void> {
  api = await ownerApi(app);
  const ws = await api<{ id: string }>("POST", "/workspaces", { name: "filters-e2e" });
  const annotator = await api<{ id: string }>("POST", "/users", {
    first_name: "Annie",
    username: ANNOTATOR.username,
    password: ANNOTATOR.password,
    role: "annotator",
  });
  await api("POST", `/workspaces/${ws.id}/users`, { user_id: annotator.id });
  const ds = await api<{ id: string }>("POST", "/datasets", { name: "filters", workspace_id: ws.id, guidelines: "Filter me." });
  datasetId = ds.id;
  await api("POST", `/datasets/${ds.id}/fields`, { name: "text", title: "Text", required: true, settings: { type: "text" } });
  const sentiment = await api<{ id: string }>("POST", `/datasets/${ds.id}/questions`, {
    name: "sentiment",
    title: "Sentiment",
    required: true,
    settings: {
      type: "label_selection",
      options: [
        { value: "positive", text: "Positive" },
        { value: "negative", text: "Negative" },
        { value: "neutral", text: "Neutral" },
      ],
    },
  });
  const entities = await api<{ id: string }>("POST", `/datasets/${ds.id}/questions`, {
    name: "entities",
    title: "Entities",
    required: false,
    settings: {
      type: "span",
      field: "text",
      options: [
        { value: "num", text: "Number" },
        { value: "kind", text: "Kind" },
      ],
    },
  });
  await api("POST", `/datasets/${ds.id}/questions`, {
    name: "quality",
    title: "Quality",
    required: false,
    settings: { type: "rating", options: [1, 2, 3, 4, 5].map((value) => ({ value })) },
  });
  await api("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "length",
    title: "Length",
    settings: { type: "integer", min: 0, max: 100 },
    visible_for_annotators: true,
  });
  await api("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "genre",
    title: "Genre",
    settings: { type: "terms", values: ["fiction", "news"] },
    visible_for_annotators: true,
  });
  await api("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "secret",
    title: "Secret",
    settings: { type: "terms", values: ["x", "y"] },
    visible_for_annotators: false,
  });
  await api("POST", `/datasets/${ds.id}/vectors-settings`, { name: "emb", title: "Embedding", dimensions: 3 });
  await api("PUT", `/datasets/${ds.id}/publish`);
  const items = Array.from({ length: 20 }, (_, i) => ({
    fields: { text: `Story ${i + 1} is ${i % 2 ? "a news item" : "a fiction piece"}` },
    metadata: { genre: i % 2 ? "news" : "fiction", secret: "x", length: ((i * 7) % 20) + 1 },
    vectors: { emb: [1, i / 20, (i % 4) / 4] },
    suggestions: [
      { question_id: sentiment.id, value: i % 3 ? "negative" : "positive", score: (i % 10) / 10, agent: i % 2 ? "model-b" : "model-a" },
      ...(i === 7 || i === 8
        ? [{ question_id: entities.id, value: [{ start: 6, end: 7, label: i === 7 ? "num" : "kind" }], score: [0.9], agent: "ner" }]
        : []),
    ],
  }));
  const created = await api<{ items: Array<{ id: string }> }>("POST", `/datasets/${ds.id}/records/bulk`, { items });
  recordIds.push(...created.items.map((r) => r.id));
  const answers = ["positive", "negative", "positive", "neutral"];
  const ratings = [5, 2, 4, 1];
  for (const [i, value] of answers.entries()) {
    await api("POST", `/records/${created.items[i]!.id}/responses`, {
      status: "submitted",
      values: { sentiment: { value }, quality: { value: ratings[i] } },
    });
  }
}

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  await seed();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function openAs(username: string, password: string, query = ""): Promise<Page> {
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
  const page = await signedInPage(context, app, username, password);
  await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode${query}`);
  await page.getByRole("group", { name: /Sentiment/ }).waitFor();
  return page;
}

const position = (page: Page) => page.locator(".record-nav__position").textContent();

type Category = "Metadata" | "Responses" | "Suggestions";

/** Opens the filters panel (when closed), a category's popover and, from its list, the editor of one property or question. */
async function openFilter(page: Page, category: Category, subject: string) {
  const toggle = page.getByRole("button", { name: /^Filters/ });
  if ((await toggle.getAttribute("aria-expanded")) !== "true") await toggle.click();
  await page.locator(".filter-trigger", { hasText: category }).click();
  const popover = page.getByRole("dialog", { name: category });
  await popover.waitFor();
  const item = popover.locator(".subject-list__item", { hasText: subject });
  if (await item.count()) await item.click();
  await popover.getByRole("heading", { name: subject }).waitFor();
  return popover;
}

/** The accessible name of the focused control, roughly (aria-label, aria-labelledby, its label, its text). */
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return "";
    const labelled = el.getAttribute("aria-labelledby");
    return (
      el.getAttribute("aria-label") ??
      (labelled ? document.getElementById(labelled)?.textContent : null) ??
      (el as HTMLInputElement).labels?.[0]?.textContent ??
      el.textContent ??
      ""
    ).trim();
  });

/** Unless the focused control's name already matches, presses Tab (or Shift+Tab) until it does. */
async function tabUntil(page: Page, name: string | RegExp, back = false): Promise<void> {
  const matches = (focused: string) => (typeof name === "string" ? focused === name : name.test(focused));
  for (let i = 0; i < 60; i++) {
    // a popover moves the focus on the next frame (once its slider has measured its thumbs)
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    if (matches(await focusedName(page))) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(`Tab never reached ${String(name)} (focused: ${await focusedName(page)})`);
}

/** The badge of an active filter, by its text. */
const badge = (page: Page, text: string | RegExp) => page.locator(".filter-badge", { hasText: text });

interface SearchHit {
  record: {
    id: string;
    fields: { text: string };
    metadata?: Record<string, unknown>;
    suggestions?: Array<{ question_id: string; score: number | null }>;
  };
}

/** What the server returns to the owner (`/me` search, as the annotation screen asks) for a status and extra filters and sort. */
async function serverAnswer(
  status: "pending" | "submitted",
  extra: { filters?: unknown[]; sort?: unknown[]; text?: string } = {},
  limit = 50,
) {
  const statusFilters = [
    { type: "terms", scope: { entity: "response", property: "status" }, values: [status] },
    ...(status === "pending" ? [{ type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] }] : []),
  ];
  const body = {
    ...(extra.text ? { query: { text: { q: extra.text, field: null } } } : {}),
    filters: { and: [...statusFilters, ...(extra.filters ?? [])] },
    ...(extra.sort ? { sort: extra.sort } : {}),
  };
  const result = await api<{ items: SearchHit[]; total: number }>(
    "POST",
    `/me/datasets/${datasetId}/records/search?include=suggestions&limit=${limit}`,
    body,
  );
  return { total: result.total, records: result.items.map((i) => i.record) };
}

/** Walks the focus view through the first texts, checking each record and its position against the server's order. */
async function expectSequence(page: Page, texts: string[], total: number): Promise<void> {
  for (const [i, text] of texts.entries()) {
    if (i > 0) await page.getByRole("button", { name: /Next/ }).click();
    await expect.poll(() => position(page)).toBe(`Record ${i + 1} of ${total}`);
    await page.getByText(text, { exact: true }).waitFor();
  }
}

describe("annotation filters in real Chromium", () => {
  it("owner: a response filter on submitted records and a suggestion-agent filter, both kept in the URL; the link opens the same view in a new browser after sign-in", async () => {
    const page = await openAs("owner", app.ownerPassword);
    // 'My progress' comes from the server: 4 submitted, 16 pending
    await expect.poll(() => page.locator('.status-counts [data-status="submitted"] strong').textContent()).toBe("4");
    expect(await page.locator('.status-counts [data-status="pending"] strong').textContent()).toBe("16");

    // response filter: submitted records answered Positive
    await page.getByRole("combobox", { name: "Status" }).selectOption("submitted");
    await expect.poll(() => position(page)).toBe("Record 1 of 4");
    const responses = await openFilter(page, "Responses", "Sentiment");
    await responses.getByRole("group", { name: "Responses to Sentiment" }).getByRole("checkbox", { name: "Positive" }).check();
    await page.keyboard.press("Escape");
    await page.waitForURL(/_response=/);
    expect(decodeURIComponent(new URL(page.url()).searchParams.get("_response") ?? "")).toContain('"values":["positive"]');
    await expect.poll(() => position(page)).toBe("Record 1 of 2");
    await page.getByText("Story 1 is a fiction piece").waitFor();
    await page.getByRole("button", { name: /Next/ }).click();
    await page.getByText("Story 3 is a fiction piece").waitFor();
    await badge(page, "Sentiment: Positive").waitFor();
    await screenshot(page, "annotation-response-filter");

    // reset, back to pending; suggestion filter on the agent model-b (odd records, 5..19 pending: 8)
    await page.getByRole("button", { name: "Reset" }).first().click();
    await page.waitForURL((url) => !url.search.includes("_response"));
    await page.getByRole("combobox", { name: "Status" }).selectOption("pending");
    await expect.poll(() => position(page)).toBe("Record 1 of 16");
    const suggestions = await openFilter(page, "Suggestions", "Sentiment");
    await suggestions.getByRole("radio", { name: "Agent" }).check();
    await suggestions.getByRole("group", { name: "Agent" }).getByRole("checkbox", { name: "model-b" }).check();
    await page.waitForURL(/_suggestion=/);
    await expect.poll(() => position(page)).toBe("Record 1 of 8");
    await page.getByText("Story 6 is a news item").waitFor();

    // the URL alone restores the filter
    const url = page.url();
    const again = await page.context().newPage();
    await again.goto(url);
    await again.getByText("Story 6 is a news item").waitFor();
    await expect.poll(() => position(again)).toBe("Record 1 of 8");
    await badge(again, "Sentiment · Agent: model-b").waitFor();
    await page.context().close();
    // a link shared with someone else: a new browser (no session) goes through sign-in and lands on the same view
    const other = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const shared = await other.newPage();
    await shared.goto(url);
    await shared.waitForURL(/\/sign-in/);
    await signIn(shared, app);
    await shared.waitForURL((u) => u.pathname.endsWith("/annotation-mode"));
    expect(new URL(shared.url()).searchParams.get("_suggestion")).toBe(new URL(url).searchParams.get("_suggestion"));
    await shared.getByText("Story 6 is a news item").waitFor();
    await expect.poll(() => position(shared)).toBe("Record 1 of 8");
    await badge(shared, "Sentiment · Agent: model-b").waitFor();
    expect(await shared.getByRole("button", { name: /^Filters/ }).textContent()).toMatch(/Filters\s*1/);
    await other.close();
  }, 90_000);

  it("a shared link with a text search lands on its position and pages on (focus: Next and →; bulk), also with metadata filters and a sort, and when searching over a linked filter", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await signedInPage(context, app);
    const open = async (query: string) => {
      await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode${query}`);
      await page.locator(".record-nav").first().waitFor();
    };
    const text = (r: { fields: { text: string } }) => r.fields.text;

    // focus: a link written by hand (search first, no status) on record 3 of the 8 pending news stories
    const news = (await serverAnswer("pending", { text: "news" })).records.map(text);
    expect(news).toHaveLength(8);
    await open("?_search=news&_page=3");
    await expect.poll(() => position(page)).toBe("Record 3 of 8");
    await page.getByText(news[2]!, { exact: true }).waitFor();
    expect(await page.getByRole("searchbox", { name: "Search records" }).inputValue()).toBe("news");
    await page.getByRole("button", { name: "Next (→)" }).click();
    await expect.poll(() => position(page)).toBe("Record 4 of 8");
    await page.getByText(news[3]!, { exact: true }).waitFor();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => position(page)).toBe("Record 5 of 8");
    await page.getByText(news[4]!, { exact: true }).waitFor();
    await page.waitForURL((u) => u.searchParams.get("_page") === "5" && u.searchParams.get("_search") === "news");

    // search + metadata range filter + sort by length (ascending), the search first and '+' for a space
    const length = { type: "range", scope: { entity: "metadata", metadata_property: "length" }, ge: 5 };
    const byLength = { scope: { entity: "metadata", metadata_property: "length" }, order: "asc" };
    const filtered = (await serverAnswer("pending", { text: "news item", filters: [length], sort: [byLength] })).records.map(text);
    expect(filtered).toHaveLength(7);
    const metadata = encodeURIComponent(JSON.stringify([{ kind: "range", name: "length", ge: 5 }]));
    const sort = encodeURIComponent(JSON.stringify([{ key: { entity: "metadata", name: "length" }, order: "asc" }]));
    await open(`?_search=news+item&_metadata=${metadata}&_sort=${sort}&_page=3&_status=pending`);
    await expect.poll(() => position(page)).toBe("Record 3 of 7");
    await page.getByText(filtered[2]!, { exact: true }).waitFor();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => position(page)).toBe("Record 4 of 7");
    await page.getByText(filtered[3]!, { exact: true }).waitFor();
    await badge(page, /Length/).waitFor();

    // a link with the filter and the sort (as the page writes it), then a search typed into the box: pages on too
    await open(`?_page=1&_status=pending&_metadata=${metadata}&_sort=${sort}`);
    await page.getByRole("searchbox", { name: "Search records" }).fill("news item");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/_search=news/);
    await expect.poll(() => position(page)).toBe("Record 1 of 7");
    await page.getByRole("button", { name: "Next (→)" }).click();
    await expect.poll(() => position(page)).toBe("Record 2 of 7");
    await page.getByText(filtered[1]!, { exact: true }).waitFor();

    // bulk: the 16 pending stories in pages of 10, the link on page 2; Previous and Next page from there
    const stories = (await serverAnswer("pending", { text: "story" })).records.map(text);
    expect(stories).toHaveLength(16);
    await open("?_search=story&_page=11~10");
    const bulkPage = page.locator(".record-nav span");
    await expect.poll(() => bulkPage.textContent()).toBe("Page 2 of 2");
    await page.getByText(stories[10]!, { exact: true }).waitFor();
    await expect.poll(() => page.getByRole("checkbox", { name: /^Select record/ }).count()).toBe(6);
    await page.getByRole("button", { name: "Previous" }).click();
    await expect.poll(() => bulkPage.textContent()).toBe("Page 1 of 2");
    await page.getByText(stories[0]!, { exact: true }).waitFor();
    await page.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => bulkPage.textContent()).toBe("Page 2 of 2");
    await page.getByText(stories[15]!, { exact: true }).waitFor();
    await context.close();
  }, 120_000);

  it("browser Back and Forward between pages and between focus and bulk show the record (focus) and the page (bulk) the URL names, without new history entries", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await signedInPage(context, app);
    const text = (r: { fields: { text: string } }) => r.fields.text;
    const pageParam = () => new URL(page.url()).searchParams.get("_page");
    const historyLength = () => page.evaluate(() => window.history.length);

    // focus: Next twice (record 3), then Back (record 2) and Forward (record 3)
    const pending = (await serverAnswer("pending")).records.map(text);
    expect(pending).toHaveLength(16);
    await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode?_page=1&_status=pending`);
    await page.locator(".record-nav").first().waitFor();
    await expect.poll(() => position(page)).toBe("Record 1 of 16");
    await page.getByRole("button", { name: "Next (→)" }).click();
    await expect.poll(() => position(page)).toBe("Record 2 of 16");
    await page.waitForURL((u) => u.searchParams.get("_page") === "2");
    await page.getByRole("button", { name: "Next (→)" }).click();
    await expect.poll(() => position(page)).toBe("Record 3 of 16");
    await page.waitForURL((u) => u.searchParams.get("_page") === "3");
    const entries = await historyLength();
    /** The focus view shows record n (its text, its position) and the URL names it. */
    const showsRecord = async (n: number) => {
      await expect.poll(() => position(page)).toBe(`Record ${n} of 16`);
      await page.getByText(pending[n - 1]!, { exact: true }).waitFor();
      expect(pageParam()).toBe(String(n));
    };
    await page.goBack();
    await showsRecord(2);
    await page.goForward();
    await showsRecord(3);
    await page.goBack();
    await page.goBack();
    await showsRecord(1);
    await page.goForward();
    await showsRecord(2);
    expect(await historyLength()).toBe(entries);

    // focus record 2 -> bulk view (its first page), then Back (focus, record 2) and Forward (bulk again)
    await page.getByRole("radio", { name: "Bulk view" }).check();
    await page.waitForURL((u) => u.searchParams.get("_page") === "1~10");
    const bulkNav = page.locator(".record-nav span");
    await expect.poll(() => bulkNav.textContent()).toBe("Page 1 of 2");
    await page.goBack();
    await showsRecord(2);
    expect(await page.getByRole("radio", { name: "Focus view" }).isChecked()).toBe(true);
    await page.goForward();
    await expect.poll(() => bulkNav.textContent()).toBe("Page 1 of 2");
    expect(pageParam()).toBe("1~10");
    expect(await page.getByRole("radio", { name: "Bulk view" }).isChecked()).toBe(true);

    // bulk: the 16 pending stories in pages of 10; Next (page 2), Back (page 1), Forward (page 2)
    const stories = (await serverAnswer("pending", { text: "story" })).records.map(text);
    await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode?_search=story&_page=1~10`);
    const bulkPage = page.locator(".record-nav span");
    await expect.poll(() => bulkPage.textContent()).toBe("Page 1 of 2");
    await page.getByText(stories[0]!, { exact: true }).waitFor();
    await page.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => bulkPage.textContent()).toBe("Page 2 of 2");
    await page.waitForURL((u) => u.searchParams.get("_page") === "11~10");
    const bulkEntries = await historyLength();
    await page.goBack();
    await expect.poll(() => bulkPage.textContent()).toBe("Page 1 of 2");
    await page.getByText(stories[0]!, { exact: true }).waitFor();
    expect(pageParam()).toBe("1~10");
    await page.goForward();
    await expect.poll(() => bulkPage.textContent()).toBe("Page 2 of 2");
    await page.getByText(stories[15]!, { exact: true }).waitFor();
    expect(pageParam()).toBe("11~10");
    expect(await historyLength()).toBe(bulkEntries);
    await context.close();
  }, 120_000);

  it("owner: a rating range response filter, sort by a metadata property (descending) and by suggestion score, each as the server answers", async () => {
    const page = await openAs("owner", app.ownerPassword);

    // rating range: submitted records rated 2..4 (records 2 and 3)
    await page.getByRole("combobox", { name: "Status" }).selectOption("submitted");
    await expect.poll(() => position(page)).toBe("Record 1 of 4");
    const quality = await openFilter(page, "Responses", "Quality");
    await quality.getByRole("radio", { name: "Range" }).check();
    const range = quality.getByRole("group", { name: "Responses to Quality" });
    await range.getByRole("spinbutton", { name: "From" }).fill("2");
    await range.getByRole("spinbutton", { name: "To" }).fill("4");
    await range.getByRole("spinbutton", { name: "To" }).press("Enter");
    await page.keyboard.press("Escape");
    await page.waitForURL(/_response=/);
    expect(JSON.parse(new URL(page.url()).searchParams.get("_response") ?? "[]")).toEqual([
      { kind: "range", question: "quality", ge: 2, le: 4 },
    ]);
    const rated = await serverAnswer("submitted", {
      filters: [{ type: "range", scope: { entity: "response", question: "quality" }, ge: 2, le: 4 }],
    });
    expect(rated.records.map((r) => r.fields.text)).toEqual(["Story 2 is a news item", "Story 3 is a fiction piece"]);
    await expectSequence(
      page,
      rated.records.map((r) => r.fields.text),
      rated.total,
    );
    await badge(page, "Quality: 2 – 4").waitFor();

    // the metadata range filter offers the observed min and max (1..20), not the configured 0..100
    await page.getByRole("button", { name: "Reset" }).first().click();
    await page.waitForURL((url) => !url.search.includes("_response"));
    await page.getByRole("combobox", { name: "Status" }).selectOption("pending");
    await expect.poll(() => position(page)).toBe("Record 1 of 16");
    const lengthEditor = await openFilter(page, "Metadata", "Length");
    await lengthEditor.getByText("Observed: 1 to 20").waitFor();
    expect(await lengthEditor.getByRole("slider").first().getAttribute("aria-valuemin")).toBe("1");
    await page.keyboard.press("Escape");

    // sort by length, descending
    await page.getByRole("button", { name: /^Sort/ }).click();
    const sortPopover = page.getByRole("dialog", { name: "Sort" });
    await sortPopover.getByRole("combobox", { name: "Sort" }).selectOption({ label: "Length" });
    await sortPopover.getByRole("group", { name: "Order of Length" }).getByRole("radio", { name: "Descending" }).check();
    await page.waitForURL(/_sort=.*desc/);
    await page.keyboard.press("Escape");
    await sortPopover.waitFor({ state: "detached" });
    expect(JSON.parse(new URL(page.url()).searchParams.get("_sort") ?? "[]")).toEqual([
      { key: { entity: "metadata", name: "length" }, order: "desc" },
    ]);
    const byLength = await serverAnswer("pending", {
      sort: [{ scope: { entity: "metadata", metadata_property: "length" }, order: "desc" }],
    });
    const lengths = byLength.records.map((r) => Number(r.metadata?.length));
    expect(lengths).toEqual([...lengths].sort((a, b) => b - a));
    await expectSequence(
      page,
      byLength.records.slice(0, 3).map((r) => r.fields.text),
      byLength.total,
    );

    // sort by the sentiment suggestion's score, descending (ties keep insertion order)
    await page.getByRole("button", { name: /^Sort/ }).click();
    await sortPopover.getByRole("combobox", { name: "Sort" }).selectOption({ label: "Suggestion score: Sentiment" });
    await page.waitForURL(/_sort=.*score/);
    await page.keyboard.press("Escape");
    expect(JSON.parse(new URL(page.url()).searchParams.get("_sort") ?? "[]")).toEqual([
      { key: { entity: "suggestion", question: "sentiment", property: "score" }, order: "desc" },
    ]);
    const byScore = await serverAnswer("pending", {
      sort: [{ scope: { entity: "suggestion", question: "sentiment", property: "score" }, order: "desc" }],
    });
    const sentimentId = (await api<{ items: Array<{ id: string; name: string }> }>("GET", `/datasets/${datasetId}/questions`)).items.find(
      (q) => q.name === "sentiment",
    )!.id;
    const scores = byScore.records.map((r) => r.suggestions?.find((s) => s.question_id === sentimentId)?.score ?? -1);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]).toBe(0.9);
    await expectSequence(
      page,
      byScore.records.slice(0, 3).map((r) => r.fields.text),
      byScore.total,
    );
    await screenshot(page, "annotation-sort-suggestion-score");

    // the URL alone restores the sort
    const again = await page.context().newPage();
    await again.goto(page.url());
    await again.getByText(byScore.records[2]!.fields.text, { exact: true }).waitFor();
    await expect.poll(() => position(again)).toBe("Record 3 of 16");
    await page.context().close();
  }, 120_000);

  it("annotator: sees only the visible metadata, filters by it, finds similar records, and gets My progress from the server", async () => {
    const page = await openAs(ANNOTATOR.username, ANNOTATOR.password);
    // only the metadata properties the API gives an annotator (visible ones) are offered
    await page.getByRole("button", { name: /^Filters/ }).click();
    await page.locator(".filter-trigger", { hasText: "Metadata" }).click();
    const list = page.getByRole("dialog", { name: "Metadata" }).locator(".subject-list__item");
    await list.first().waitFor();
    expect((await list.allTextContents()).sort()).toEqual(["Genre", "Length"]);
    await page.keyboard.press("Escape");
    const genre = await openFilter(page, "Metadata", "Genre");
    await genre.getByRole("group", { name: "Genre" }).getByRole("checkbox", { name: "news" }).check();
    await page.keyboard.press("Escape");
    await page.waitForURL(/_metadata=/);
    // records 1-4 are completed by the owner (min_submitted 1); news among 5..20: 8
    await expect.poll(() => position(page)).toBe("Record 1 of 8");
    await page.getByText("Story 6 is a news item").waitFor();

    // Find similar from the annotator's record (vector settings loaded for members)
    await page.getByRole("button", { name: "Find similar" }).click();
    await page.getByRole("spinbutton", { name: "Record number" }).fill("3");
    await page.getByRole("button", { name: "Search", exact: true }).last().click();
    await page.waitForURL(/_similarity=/);
    await page.getByText(/Similarity Score \d+(\.\d)?%/).waitFor();
    await expect.poll(() => position(page)).toBe("Record 1 of 3");

    // submitting refreshes My progress (server metrics for this annotator)
    await expect.poll(() => page.locator('.status-counts [data-status="submitted"] strong').textContent()).toBe("0");
    await page.getByRole("radio", { name: /Neutral/ }).click();
    await page.getByRole("button", { name: /Submit/ }).click();
    await expect.poll(() => page.locator('.status-counts [data-status="submitted"] strong').textContent(), { timeout: 10_000 }).toBe("1");
    await screenshot(page, "annotation-annotator-metadata-similar");
    // leaving the dataset gives the annotator's reserved records back to the team (issue 29) for the owner's bulk page below
    await page.goto(`${app.url}/`);
    const holders = async () =>
      (await api<{ users: Array<{ username: string }> }>("GET", `/datasets/${datasetId}/reservations`)).users.map((u) => u.username);
    await expect.poll(holders, { timeout: 10_000 }).not.toContain(ANNOTATOR.username);
    await page.context().close();
  }, 90_000);

  it("keyboard only: each filter type is set through the panel, shows its badge, and clearing the badge restores the full list", async () => {
    const page = await openAs("owner", app.ownerPassword);
    // an earlier test's annotator completed a record: the owner's pending count is the server's
    const all = await serverAnswer("pending");
    await expect.poll(() => position(page)).toBe(`Record 1 of ${all.total}`);
    const press = async (...keys: string[]) => {
      for (const key of keys) await page.keyboard.press(key);
    };
    const tabTo = (name: string | RegExp, back = false) => tabUntil(page, name, back);
    /** From the focused category button (or Shift+Tab back to it): Enter opens its popover, Enter on the subject opens its editor. */
    const openByKeys = async (category: Category, subject: string, back = false) => {
      await tabTo(category, back);
      await press("Enter");
      await tabTo(subject);
      await press("Enter");
    };
    /** The badge shows, the list is what the server answers for the filter; its × (reached by Tab) restores the full list. */
    /** The Filters button's funnel: filled (the brand colour) while a filter is on, an outline otherwise. */
    const funnelFill = () =>
      page
        .locator(".filters-bar .tool-button svg path")
        .first()
        .evaluate((el) => getComputedStyle(el).fill);
    const expectBadgeThenClear = async (text: string, filter: unknown) => {
      await badge(page, text).waitFor();
      expect(await funnelFill()).not.toBe("none");
      const filtered = await serverAnswer("pending", { filters: [filter] });
      expect(filtered.total).toBeLessThan(all.total);
      expect(filtered.total).toBeGreaterThan(0);
      await expect.poll(() => position(page)).toBe(`Record 1 of ${filtered.total}`);
      await page.getByText(filtered.records[0]!.fields.text, { exact: true }).waitFor();
      await press("Escape");
      await tabTo(`Remove filter ${text}`);
      await press("Enter");
      await badge(page, text).waitFor({ state: "detached" });
      await expect.poll(() => position(page)).toBe(`Record 1 of ${all.total}`);
      await page.getByText(all.records[0]!.fields.text, { exact: true }).waitFor();
      expect(new URL(page.url()).search).not.toMatch(/_metadata|_response|_suggestion/);
      expect(await funnelFill()).toBe("none");
    };

    // Filters opens the panel (Enter on a button presses it, it does not submit the record)
    await page.getByRole("searchbox", { name: "Search records" }).focus();
    await tabTo(/^Filters/);
    await press("Enter");
    await page.getByRole("group", { name: "Filters" }).waitFor();
    expect((await serverAnswer("pending")).total).toBe(all.total);

    // metadata terms: Metadata > Genre, search the list, Space on 'news'
    await openByKeys("Metadata", "Genre");
    await page.keyboard.type("new");
    await tabTo("news");
    await press("Space");
    await page.waitForURL(/_metadata=/);
    await expectBadgeThenClear("Genre: news", {
      type: "terms",
      scope: { entity: "metadata", metadata_property: "genre" },
      values: ["news"],
    });

    // metadata range: Metadata > Length; the low thumb up 4 steps, the high thumb down 10 (Page Down)
    await openByKeys("Metadata", "Length", true);
    const low = page.getByRole("slider", { name: "Minimum of Length" });
    await expect.poll(() => low.evaluate((el) => el === document.activeElement)).toBe(true);
    await press("ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight");
    await tabTo("Maximum of Length");
    await press("PageDown");
    await expect
      .poll(() => JSON.parse(new URL(page.url()).searchParams.get("_metadata") ?? "[]"))
      .toEqual([{ kind: "range", name: "length", ge: 5, le: 10 }]);
    expect(await page.getByRole("spinbutton", { name: "From" }).inputValue()).toBe("5");
    await expectBadgeThenClear("Length: 5 – 10", {
      type: "range",
      scope: { entity: "metadata", metadata_property: "length" },
      ge: 5,
      le: 10,
    });

    // suggestion value: Suggestions > Sentiment, 'Suggestion values' is the first choice; Space on Negative
    await openByKeys("Suggestions", "Sentiment", true);
    await tabTo("Negative");
    await press("Space");
    await page.waitForURL(/_suggestion=/);
    await expectBadgeThenClear("Sentiment · Suggestion values: Negative", {
      type: "terms",
      scope: { entity: "suggestion", question: "sentiment", property: "value" },
      values: ["negative"],
    });

    // suggestion score: arrows move the choice to Score; the low thumb up 5 pages (0.5)
    await openByKeys("Suggestions", "Sentiment", true);
    await tabTo("Suggestion values");
    await press("ArrowRight");
    await tabTo("Minimum of Score");
    await press("PageUp", "PageUp", "PageUp", "PageUp", "PageUp");
    await expect
      .poll(() => JSON.parse(new URL(page.url()).searchParams.get("_suggestion") ?? "[]"))
      .toEqual([{ kind: "range", question: "sentiment", property: "score", ge: 0.5, le: 1 }]);
    await expectBadgeThenClear("Sentiment · Score: 0.5 – 1", {
      type: "range",
      scope: { entity: "suggestion", question: "sentiment", property: "score" },
      ge: 0.5,
      le: 1,
    });

    // suggestion agent: the third choice; Space on model-a
    await openByKeys("Suggestions", "Sentiment", true);
    await tabTo("Suggestion values");
    await press("ArrowRight", "ArrowRight");
    await tabTo("model-a");
    await press("Space");
    await page.waitForURL(/_suggestion=/);
    await expectBadgeThenClear("Sentiment · Agent: model-a", {
      type: "terms",
      scope: { entity: "suggestion", question: "sentiment", property: "agent" },
      values: ["model-a"],
    });

    // the range's numbers are clamped to what the records hold (1 to 20): From -100 becomes 1, To 999 becomes 20, and
    // the whole range is no filter at all
    await openByKeys("Metadata", "Length", true);
    await tabTo("From");
    await press("Control+A");
    await page.keyboard.type("-100");
    await press("Tab");
    expect(await page.getByRole("spinbutton", { name: "From" }).inputValue()).toBe("1");
    await tabTo("To");
    await press("Control+A");
    await page.keyboard.type("999");
    await press("Enter");
    expect(await page.getByRole("spinbutton", { name: "To" }).inputValue()).toBe("20");
    expect(new URL(page.url()).searchParams.get("_metadata")).toBeNull();
    expect(await page.locator(".filter-badge").count()).toBe(0);
    await press("Escape");
    await screenshot(page, "annotation-filters-keyboard");
    await page.context().close();
  }, 120_000);

  it("keyboard only: a response filter on submitted records, cleared from its badge", async () => {
    const page = await openAs("owner", app.ownerPassword, "?_status=submitted");
    await expect.poll(() => position(page)).toBe("Record 1 of 4");
    await page.getByRole("searchbox", { name: "Search records" }).focus();
    await tabUntil(page, /^Filters/);
    await page.keyboard.press("Enter");
    await tabUntil(page, "Responses");
    await page.keyboard.press("Enter");
    const popover = page.getByRole("dialog", { name: "Responses" });
    await popover.waitFor();
    // the popover takes the focus a frame after it mounts: Enter before that would press the Responses button again
    await expect.poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[role="dialog"]')))).toBe(true);
    await page.keyboard.press("Enter"); // the first question of the list: Sentiment
    await popover.getByRole("heading", { name: "Sentiment" }).waitFor();
    await expect.poll(() => focusedName(page)).toBe("Positive"); // the editor's first option takes the focus
    await page.keyboard.press("Space");
    await page.waitForURL(/_response=/);
    await badge(page, "Sentiment: Positive").waitFor();
    await expect.poll(() => position(page)).toBe("Record 1 of 2");
    await page.keyboard.press("Escape");
    await popover.waitFor({ state: "detached" });
    // Escape gives the focus back to the Responses button (Radix's focus scope does so a task after the popover
    // leaves the DOM, hence the poll); the badge and its × come next
    await expect.poll(() => focusedName(page)).toBe("Responses");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await focusedName(page)).toBe("Remove filter Sentiment: Positive");
    await page.keyboard.press("Enter");
    await expect.poll(() => position(page)).toBe("Record 1 of 4");
    expect(await badge(page, "Sentiment: Positive").count()).toBe(0);
    await page.context().close();
  }, 90_000);

  it("bulk view: collapsed cards show their fields clamped with a fade and 'Show more'; 'Expand records' shows them whole", async () => {
    const ws = await api<{ id: string }>("POST", "/workspaces", { name: "bulk-cards" });
    const ds = await api<{ id: string }>("POST", "/datasets", { name: "bulk-cards", workspace_id: ws.id });
    await api("POST", `/datasets/${ds.id}/fields`, { name: "text", title: "Text", required: true, settings: { type: "text" } });
    await api("POST", `/datasets/${ds.id}/questions`, {
      name: "ok",
      title: "Ok",
      required: true,
      settings: {
        type: "label_selection",
        options: [
          { value: "yes", text: "Yes" },
          { value: "no", text: "No" },
        ],
      },
    });
    await api("PUT", `/datasets/${ds.id}/publish`);
    const long = Array.from({ length: 40 }, (_, i) => `Sentence ${i + 1} of the long review.`).join(" ");
    await api("POST", `/datasets/${ds.id}/records/bulk`, {
      items: [{ fields: { text: "A short review." } }, { fields: { text: long } }, { fields: { text: "Another short one." } }],
    });
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1440, height: 900 } });
    const page = await signedInPage(context, app);
    await page.goto(`${app.url}/dataset/${ds.id}/annotation-mode?_page=1~10`);
    await page.getByRole("checkbox", { name: "Select all" }).waitFor();
    const cards = page.locator(".bulk-list article[data-record-id]");
    await expect.poll(() => cards.count()).toBe(3);
    // every collapsed card shows its text (visible, inside the card)
    for (const [i, text] of ["A short review.", "Sentence 1 of the long review.", "Another short one."].entries()) {
      const shown = cards.nth(i).getByText(text, { exact: i !== 1 });
      expect(await shown.isVisible()).toBe(true);
      expect((await shown.boundingBox())!.height).toBeGreaterThan(10);
    }
    // the long one is clamped, fades and offers Show more; the short ones do not
    const longCard = cards.nth(1);
    const clamp = longCard.locator(".record-clamp");
    expect(await clamp.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    expect(await clamp.getAttribute("class")).toContain("record-clamp--fade");
    expect(await cards.nth(0).getByRole("button", { name: "Show more" }).count()).toBe(0);
    const clampedHeight = (await clamp.boundingBox())!.height;
    expect(clampedHeight).toBeLessThanOrEqual(180);
    await screenshot(page, "annotation-bulk-collapsed");
    await longCard.getByRole("button", { name: "Show more" }).click();
    await expect.poll(async () => (await clamp.boundingBox())!.height).toBeGreaterThan(clampedHeight);
    expect(await longCard.getByRole("button", { name: "Show less" }).getAttribute("aria-expanded")).toBe("true");
    await longCard.getByRole("button", { name: "Show less" }).click();
    // Expand records: every card whole, the last sentence on screen once scrolled to
    await page.getByRole("button", { name: "Expand records" }).click();
    await page.getByRole("button", { name: "Collapse records" }).waitFor();
    expect(await page.getByRole("button", { name: "Show more" }).count()).toBe(0);
    expect(await clamp.evaluate((el) => el.scrollHeight <= el.clientHeight + 1)).toBe(true);
    await longCard.getByText("Sentence 40 of the long review.", { exact: false }).scrollIntoViewIfNeeded();
    await context.close();
  }, 90_000);

  it("bulk view: the form's answers go to every selected record, but each record keeps its own spans (never copied)", async () => {
    const page = await openAs("owner", app.ownerPassword, "?_page=1~10");
    await page.getByRole("checkbox", { name: "Select all" }).check();
    await page.getByText("10 records selected").waitFor();
    // Story 8 and 9 show their own suggested spans on their own text
    await page.locator('[data-record-id="' + recordIds[7] + '"] .span-badge[data-span="6-7"]').waitFor();
    await page.locator('[data-record-id="' + recordIds[8] + '"] .span-badge[data-span="6-7"]').waitFor();
    await page.getByRole("radio", { name: /Positive/ }).click();
    await page.getByRole("button", { name: /Submit/ }).click();
    const owner = await api<{ id: string }>("GET", "/me");
    // the owner's own response (the annotator answered one news record earlier)
    const stored = async (i: number) =>
      (
        await api<{ responses?: Array<{ user_id: string; status: string; values: Record<string, { value: unknown }> }> }>(
          "GET",
          `/records/${recordIds[i]}`,
        )
      ).responses?.find((r) => r.user_id === owner.id);
    await expect.poll(async () => (await stored(8))?.status, { timeout: 15_000 }).toBe("submitted");
    expect((await stored(7))?.values).toEqual({
      sentiment: { value: "positive" },
      entities: { value: [{ start: 6, end: 7, label: "num" }] },
    });
    expect((await stored(8))?.values).toEqual({
      sentiment: { value: "positive" },
      entities: { value: [{ start: 6, end: 7, label: "kind" }] },
    });
    // Story 7 (fiction, never answered by the annotator) had no span suggestion: no span answer at all
    expect((await stored(6))?.values).toEqual({ sentiment: { value: "positive" } });
    await screenshot(page, "annotation-bulk-own-spans");
    await page.context().close();
  }, 90_000);
});
