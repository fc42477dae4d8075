import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, screenshot, startApp, type RunningApp } from "./harness.js";
import { audit } from "./axe.js";
import { apiWithToken, accessToken, ownerApi, signedInPage, type Api } from "./seed.js";

/**
 * Issue 22 end to end, in real Chromium against the built server: two annotators answer a record
 * differently in the annotation page; the owner sees the agreement figures drop, finds the record
 * through the Disagreements filter of review mode, reads both responses side by side, sets the
 * final answer with the keyboard; the record shows as validated and the review progress moves.
 * Annotators get neither screen. Both screens pass the axe audit in the light and the dark theme.
 *
 * Dataset: field `text`, a required label question `sentiment` (Positive/Negative/Neutral) and an
 * optional rating `quality` (so a label click does not auto-submit), min_submitted 2. Records
 * "Story 1..3": stories 2 and 3 are answered alike by both annotators over the API, story 1 in the browser.
 */
let app: RunningApp;
let browser: Browser;
let owner: Api;
let datasetId = "";
const ANN = [
  { username: "ada", password: "ada-password-1" },
  { username: "bob", password: "bob-password-1" },
];

async function seed(): Promise<void> {
  owner = await ownerApi(app);
  const ws = await owner<{ id: string }>("POST", "/workspaces", { name: "review-e2e" });
  for (const a of ANN) {
    const user = await owner<{ id: string }>("POST", "/users", {
      first_name: a.username,
      username: a.username,
      password: a.password,
      role: "annotator",
    });
    await owner("POST", `/workspaces/${ws.id}/users`, { user_id: user.id });
  }
  const ds = await owner<{ id: string }>("POST", "/datasets", {
    name: "review",
    workspace_id: ws.id,
    distribution: { strategy: "overlap", min_submitted: 2 },
  });
  datasetId = ds.id;
  await owner("POST", `/datasets/${ds.id}/fields`, { name: "text", title: "Text", required: true, settings: { type: "text" } });
  await owner("POST", `/datasets/${ds.id}/questions`, {
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
  await owner("POST", `/datasets/${ds.id}/questions`, {
    name: "quality",
    title: "Quality",
    required: false,
    settings: { type: "rating", options: [1, 2, 3].map((value) => ({ value })) },
  });
  await owner("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "genre",
    title: "Genre",
    settings: { type: "terms", values: ["news", "blog"] },
  });
  await owner("PUT", `/datasets/${ds.id}/publish`);
  const records = await owner<{ items: { id: string }[] }>("POST", `/datasets/${ds.id}/records/bulk`, {
    items: [1, 2, 3].map((n) => ({ external_id: `story-${n}`, fields: { text: `Story ${n}: a short tale` }, metadata: { genre: "news" } })),
  });
  const [, second, third] = records.items;
  for (const a of ANN) {
    const api = apiWithToken(app, await accessToken(app, a.username, a.password));
    await api("POST", `/records/${second!.id}/responses`, { status: "submitted", values: { sentiment: { value: "positive" } } });
    await api("POST", `/records/${third!.id}/responses`, { status: "submitted", values: { sentiment: { value: "negative" } } });
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

/** The percent agreement shown on the Sentiment card. */
async function sentimentPercent(page: Page): Promise<string> {
  const card = page.locator('[data-question="sentiment"] [data-metric="percent_agreement"] strong');
  await card.waitFor();
  return (await card.textContent()) ?? "";
}

describe("review workflow", () => {
  it("annotators disagree; the reviewer finds the record, sets the final answer; figures and review progress change", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    try {
      const reviewer = await signedInPage(context, app);
      // before: stories 2 and 3 agree
      await reviewer.goto(`${app.url}/dataset/${datasetId}/annotation-mode`);
      await reviewer.getByRole("link", { name: "Agreement" }).click();
      await reviewer.waitForURL(/\/agreement/);
      expect(await sentimentPercent(reviewer)).toBe("100%");
      await reviewer.getByText("0 of 0 records reviewed").waitFor();

      // two annotators answer story 1 differently, in the annotation page
      for (const [a, label] of [
        [ANN[0]!, "Positive"],
        [ANN[1]!, "Negative"],
      ] as const) {
        const annotatorContext = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
        const page = await signedInPage(annotatorContext, app, a.username, a.password);
        await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode`);
        await page.getByText("Story 1: a short tale").waitFor();
        await page.getByRole("radio", { name: new RegExp(label) }).click();
        await page.getByRole("button", { name: /Submit/ }).click();
        const mine = apiWithToken(app, await accessToken(app, a.username, a.password));
        await expect
          .poll(
            async () => (await mine<{ responses: { submitted: number } }>("GET", `/me/datasets/${datasetId}/metrics`)).responses.submitted,
            { timeout: 10_000 },
          )
          .toBe(3);
        // annotators get no way into review or agreement, and the screens refuse them
        expect(await page.getByRole("link", { name: "Agreement" }).count()).toBe(0);
        expect(await page.getByRole("link", { name: "Review" }).count()).toBe(0);
        await page.goto(`${app.url}/dataset/${datasetId}/agreement`);
        await page.getByText("Only owners and admins of this dataset's workspace").waitFor();
        await annotatorContext.close();
      }
      await expect
        .poll(async () => (await owner<{ total: number }>("POST", `/datasets/${datasetId}/review/records`, {})).total, { timeout: 10_000 })
        .toBe(1);

      // the figures drop: story 1 disagrees
      await reviewer.reload();
      expect(await sentimentPercent(reviewer)).toBe("66.7%");
      await reviewer.getByText("0 of 1 records reviewed").waitFor();
      await reviewer.getByRole("link", { name: "Review this record" }).waitFor();

      // review mode: the Disagreements filter on Sentiment finds story 1 with both responses side by side
      await reviewer.getByRole("link", { name: "Review disagreements" }).first().click();
      await reviewer.waitForURL(/\/review/);
      await reviewer.getByLabel("Disagreements on").selectOption("sentiment");
      await reviewer.getByText("Story 1: a short tale").waitFor();
      await reviewer.getByText("Record 1 of 1").waitFor();
      const row = (user: string) => reviewer.locator(`tr[data-user="${user}"]`);
      expect(await row("ada").textContent()).toContain("positive");
      expect(await row("bob").textContent()).toContain("negative");
      // a tie: no majority, the form starts empty
      expect(await reviewer.getByRole("radio", { name: /Neutral/ }).getAttribute("aria-checked")).toBe("false");
      await reviewer.getByRole("radio", { name: /Neutral/ }).click();
      await reviewer.locator("body").press("Enter");
      await reviewer.getByText("No records to review with these filters.").waitFor();
      await reviewer.getByText("1 of 1 records reviewed").waitFor();

      // the reviewed record shows as validated with its final answer; the annotators' responses are unchanged
      await reviewer.getByLabel("Show").selectOption("reviewed");
      await reviewer.getByText("Story 1: a short tale").waitFor();
      await reviewer.getByText("Validated").first().waitFor();
      await reviewer.getByText(/The final answer set by owner/).waitFor();
      expect(await reviewer.getByRole("radio", { name: /Neutral/ }).getAttribute("aria-checked")).toBe("true");
      expect(await row("ada").textContent()).toContain("positive");

      // back on the Agreement screen the review progress moved; the figures still come from the annotators
      await reviewer.getByRole("link", { name: "Agreement" }).click();
      await reviewer.getByText("1 of 1 records reviewed").waitFor();
      expect(await sentimentPercent(reviewer)).toBe("66.7%");
      await screenshot(reviewer, "review-agreement");

      // review mode keeps the annotation page's metadata filters (carried in the URL): no story is a blog post
      const blog = encodeURIComponent(JSON.stringify([{ kind: "terms", name: "genre", values: ["blog"] }]));
      await reviewer.goto(`${app.url}/dataset/${datasetId}/review?_metadata=${blog}`);
      await reviewer.getByText("1 metadata filter from the annotation page applies").waitFor();
      await reviewer.getByLabel("Show").selectOption("all");
      await reviewer.getByText("No records to review with these filters.").waitFor();
      await reviewer.getByRole("button", { name: "Remove the metadata filters" }).click();
      await reviewer.getByText("Story 1: a short tale").waitFor();
    } catch (error) {
      for (const page of context.pages()) await screenshot(page, "review-failure");
      throw error;
    } finally {
      await context.close();
    }
  }, 120_000);

  it.each(["light", "dark"] as const)(
    "passes the axe audit on the Agreement screen and in review mode (%s theme)",
    async (theme) => {
      const context = await browser.newContext({
        locale: "en-US",
        colorScheme: theme,
        viewport: { width: 1400, height: 1000 },
        bypassCSP: true,
      });
      try {
        const page = await signedInPage(context, app);
        await page.goto(`${app.url}/dataset/${datasetId}/agreement`);
        await sentimentPercent(page);
        const found = await audit(page, `agreement-${theme}`);
        await page.goto(`${app.url}/dataset/${datasetId}/review`);
        await page.getByLabel("Disagreements on").selectOption({ label: "All answered records" });
        await page.getByLabel("Show").selectOption("all");
        await page.getByText(/^Record 1 of \d/).waitFor();
        found.push(...(await audit(page, `review-${theme}`)));
        expect(found).toEqual([]);
      } finally {
        await context.close();
      }
    },
    60_000,
  );
});
