import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
// The fake hub is consumed as source (vitest compiles it), like the server's own tests do.
import { startFakeHub, FAKE_HUB_TOKEN, type FakeHub } from "../../fake-hub/src/index.js";
import { launchBrowser, screenshot, startApp, type RunningApp } from "./harness.js";
import { ownerApi, signedInPage, type Api } from "./seed.js";

/** Dataset creation from the Hub through the page, against the real server and the fake hub, then one annotation each. */
let hub: FakeHub;
let app: RunningApp;
let browser: Browser;
let api: Api;
let context: BrowserContext;
let datasetsDir = "";

/**
 * The fake hub's fixtures plus one dataset whose column names break the server's name rule
 * ("Stars (1-5)" and "stars_1-5" both clean to stars_1-5) and a class-label column (suggestions in the preview).
 */
function writeDatasets(): string {
  const dir = mkdtempSync(join(tmpdir(), "tessera-e2e-hub-"));
  cpSync(fileURLToPath(new URL("../../fake-hub/datasets", import.meta.url)), dir, { recursive: true });
  const descriptor = {
    id: "tessera/messy-columns",
    license: "cc0-1.0",
    description: "Column names that need cleaning.",
    configs: {
      default: {
        features: {
          "Review Text": { _type: "Value", dtype: "string" },
          "Stars (1-5)": { _type: "Value", dtype: "int32" },
          "stars_1-5": { _type: "Value", dtype: "int64" },
          "Sentiment Label": { _type: "ClassLabel", names: ["negative", "positive"] },
        },
        splits: { train: { file: "tessera__messy-columns.train.jsonl" } },
      },
    },
  };
  writeFileSync(join(dir, "tessera__messy-columns.json"), JSON.stringify(descriptor));
  const rows = Array.from({ length: 12 }, (_, i) => ({
    "Review Text": `Messy review number ${i + 1}`,
    "Stars (1-5)": (i % 5) + 1,
    "stars_1-5": 5 - (i % 5),
    "Sentiment Label": i % 2 === 0 ? 1 : 0,
  }));
  writeFileSync(join(dir, "tessera__messy-columns.train.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return dir;
}

async function firstRow(repo: string, config: string, split: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${hub.url}/first-rows?${new URLSearchParams({ dataset: repo, config, split })}`);
  return ((await res.json()) as { rows: Array<{ row: Record<string, unknown> }> }).rows[0]!.row;
}

async function submittedCount(datasetId: string): Promise<number> {
  const body = await api<{ users: Array<{ completed: { submitted: number }; pending: { submitted: number } }> }>(
    "GET",
    `/datasets/${datasetId}/users/progress`,
  );
  return body.users.reduce((n, u) => n + u.completed.submitted + u.pending.submitted, 0);
}

beforeAll(async () => {
  datasetsDir = writeDatasets();
  hub = await startFakeHub({ port: 0, datasetsDir });
  [app, browser] = await Promise.all([
    startApp({
      TESSERA_HUB_DATASETS_SERVER_URL: hub.url,
      HF_TOKEN: FAKE_HUB_TOKEN,
      TESSERA_HUB_RETRY_DELAY_MS: "50",
      TESSERA_JOBS_RETRY_DELAY_MS: "200",
    }),
    launchBrowser(),
  ]);
  api = await ownerApi(app);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await hub?.close();
  if (datasetsDir) rmSync(datasetsDir, { recursive: true, force: true });
});

/** One signed-in browser context for the file; each test gets a fresh page on home. */
async function signedIn(): Promise<{ context: { close(): Promise<void> }; page: Page }> {
  if (!context) {
    context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const first = await signedInPage(context, app);
    await first.close();
  }
  const page = await context.newPage();
  await page.goto(`${app.url}/`);
  return { context: { close: () => page.close() }, page };
}

interface Case {
  repo: string;
  config: string;
  split: string;
  /** Text of the first record that the annotation page must show. */
  expected: (row: Record<string, unknown>) => string;
  configure?: (page: Page) => Promise<void>;
  /** Answers the first record (single-label questions auto-submit). */
  answer: (page: Page, row: Record<string, unknown>) => Promise<void>;
  check?: (datasetId: string) => Promise<void>;
}

const other = (names: string[], index: unknown) => names.find((_, i) => i !== index) ?? names[0]!;

const CASES: Case[] = [
  {
    repo: "tessera/news-topics",
    config: "default",
    split: "train",
    expected: (r) => String(r["text"]),
    configure: async (page) => {
      await page.getByLabel("Assign a workspace").selectOption({ label: "New workspace" });
      await page.getByLabel("Name of the new workspace").fill("hub-e2e");
    },
    // The multi-label question is prefilled from the mapped column's suggestion: submit it.
    answer: async (page) => {
      await expect
        .poll(
          () =>
            page
              .getByRole("checkbox", { name: /politics/ })
              .first()
              .isChecked()
              .catch(() => false),
          { timeout: 10_000 },
        )
        .toBe(true);
      await page.getByRole("button", { name: /Submit/ }).click();
    },
  },
  {
    repo: "tessera/chat-demo",
    config: "default",
    split: "train",
    expected: (r) => String(r["prompt"]),
    configure: async (page) => {
      await page.getByRole("button", { name: "Remove comment" }).click();
      await page.getByText("At least one question is required.").waitFor();
      expect(await page.getByRole("button", { name: "Create dataset" }).isDisabled()).toBe(true);
      await page.getByRole("button", { name: "Add a Label question" }).click();
      await page.getByLabel("Labels", { exact: true }).fill("helpful, unhelpful");
      await page.getByLabel("Type of category").selectOption("terms");
    },
    answer: async (page) => {
      await page.getByRole("radio", { name: /unhelpful/ }).click();
    },
    check: async (id) => {
      const metadata = await api<{ items: Array<{ name: string; settings: { type: string } }> }>(
        "GET",
        `/me/datasets/${id}/metadata-properties`,
      );
      expect(metadata.items.map((m) => [m.name, m.settings.type])).toEqual([["category", "terms"]]);
      const fields = await api<{ items: Array<{ name: string; settings: { type: string } }> }>("GET", `/datasets/${id}/fields`);
      expect(fields.items.map((f) => [f.name, f.settings.type])).toEqual([
        ["prompt", "text"],
        ["messages", "chat"],
      ]);
    },
  },
  {
    repo: "tessera/shapes-images",
    config: "default",
    split: "train",
    expected: (r) => String(r["caption"]),
    answer: async (page, row) => {
      await page.getByRole("radio", { name: new RegExp(other(["circle", "square", "triangle"], row["label"])) }).click();
    },
    check: async (id) => {
      const fields = await api<{ items: Array<{ name: string; settings: { type: string } }> }>("GET", `/datasets/${id}/fields`);
      expect(fields.items.map((f) => [f.name, f.settings.type])).toEqual([
        ["image", "image"],
        ["caption", "text"],
      ]);
    },
  },
  {
    repo: "tessera/product-reviews",
    config: "en",
    split: "test",
    expected: (r) => String(r["review"]),
    configure: async (page) => {
      await page.getByLabel("Subset", { exact: true }).selectOption("de");
      await page.getByLabel("Subset", { exact: true }).selectOption("en");
      await page.getByLabel("Split", { exact: true }).selectOption("test");
      await page.getByLabel("Type of product").selectOption("terms");
      await page.getByText("kettle: Solid build and fast delivery.").first().waitFor();
    },
    answer: async (page, row) => {
      await page.getByRole("radio", { name: new RegExp(other(["negative", "positive"], row["sentiment"])) }).click();
    },
    check: async (id) => {
      const dataset = await api<{ metadata: { subset: string; split: string } }>("GET", `/datasets/${id}`);
      expect([dataset.metadata.subset, dataset.metadata.split]).toEqual(["en", "test"]);
      const metadata = await api<{ items: Array<{ name: string; settings: { type: string } }> }>(
        "GET",
        `/me/datasets/${id}/metadata-properties`,
      );
      expect(metadata.items.map((m) => [m.name, m.settings.type]).sort()).toEqual([
        ["helpful_votes", "integer"],
        ["price", "float"],
        ["product", "terms"],
        ["rating", "integer"],
      ]);
      await expect.poll(async () => (await api<{ total: number }>("GET", `/datasets/${id}/progress`)).total, { timeout: 20_000 }).toBe(10);
    },
  },
  {
    repo: "tessera/sentiment-10k",
    config: "default",
    split: "train",
    expected: (r) => String(r["text"]),
    answer: async (page, row) => {
      await page.getByRole("radio", { name: new RegExp(other(["negative", "positive"], row["label"])) }).click();
    },
    check: async (id) => {
      // The import takes the first 10,000 rows of the 10,050 (rows without a label are records too).
      await expect
        .poll(async () => (await api<{ total: number }>("GET", `/datasets/${id}/progress`)).total, { timeout: 60_000, interval: 1000 })
        .toBe(10_000);
    },
  },
];

async function createAndAnnotate(page: Page, c: Case): Promise<void> {
  const row = await firstRow(c.repo, c.config, c.split);
  await page.getByPlaceholder("Paste a repo id e.g., stanfordnlp/imdb").fill(c.repo);
  await page.getByRole("button", { name: "Import dataset" }).click();
  await page.waitForURL(`${app.url}/new/${encodeURIComponent(c.repo)}`);
  await page.getByRole("button", { name: "Create dataset" }).waitFor();
  await c.configure?.(page);
  // The live preview shows the first row and the question form.
  await page.getByText(c.expected(row)).first().waitFor();
  const create = page.getByRole("button", { name: "Create dataset" });
  await expect.poll(() => create.isEnabled()).toBe(true);
  if (c.repo === "tessera/product-reviews") await screenshot(page, "dataset-creation-product-reviews");
  await create.click();
  await page.waitForURL(/\/dataset\/[0-9a-f-]+\/annotation-mode/, { timeout: 60_000 });
  const datasetId = new URL(page.url()).pathname.split("/")[2]!;
  const dataset = await api<{ name: string; metadata: { repoId: string } }>("GET", `/datasets/${datasetId}`);
  expect([dataset.name, dataset.metadata.repoId]).toEqual([c.repo.split("/")[1], c.repo]);
  await page.getByText(c.expected(row)).first().waitFor({ timeout: 20_000 });
  await c.answer(page, row);
  await expect.poll(() => submittedCount(datasetId), { timeout: 15_000 }).toBe(1);
  await c.check?.(datasetId);
}

describe("dataset creation from the Hub in real Chromium", () => {
  it.each(CASES)(
    "creates a dataset from $repo through the page, then annotates its first record",
    async (c) => {
      const { context, page } = await signedIn();
      try {
        await createAndAnnotate(page, c);
      } catch (error) {
        await screenshot(page, `dataset-creation-failure-${c.repo.replace("/", "__")}`);
        throw error;
      } finally {
        await context.close();
      }
    },
    120_000,
  );

  it("previews mapped-column suggestions, cleans metadata names, orders labels by keyboard drag; the import follows", async () => {
    const { context, page } = await signedIn();
    try {
      await page.goto(`${app.url}/new/${encodeURIComponent("tessera/messy-columns")}`);
      await page.getByRole("button", { name: "Create dataset" }).waitFor();
      // The class-label column is mapped to the sentiment_label question: the preview prefills its suggestion (row 0: positive).
      const questionsPreview = page.getByRole("region", { name: "Question form preview" });
      await expect.poll(() => questionsPreview.getByRole("radio", { name: /positive/ }).isChecked()).toBe(true);
      expect(await questionsPreview.getByRole("radio", { name: /negative/ }).isChecked()).toBe(false);
      await page.getByRole("region", { name: "Record preview" }).getByText("Messy review number 1", { exact: true }).waitFor();

      // A new label question: drag 'neutral' to the top with the keyboard.
      await page.getByRole("button", { name: "Add a Label question" }).click();
      await page.getByRole("button", { name: "Drag neutral to reorder" }).focus();
      await page.keyboard.press("Space");
      await page.getByText("Picked up neutral, position 3 of 3.").waitFor({ state: "attached" });
      await page.keyboard.press("ArrowUp");
      await page.getByText("neutral moved to position 2 of 3.").waitFor({ state: "attached" });
      await page.keyboard.press("ArrowUp");
      await page.getByText("neutral moved to position 1 of 3.").waitFor({ state: "attached" });
      await page.keyboard.press("Space");
      const added = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: /label_selection_2/ }) });
      await expect.poll(() => added.getByLabel("Labels", { exact: true }).inputValue()).toBe("neutral, positive, negative");
      await added.getByRole("button", { name: "Move negative up" }).click();
      await expect.poll(() => added.getByLabel("Labels", { exact: true }).inputValue()).toBe("neutral, negative, positive");

      await page.getByLabel("Assign a workspace").selectOption({ label: "New workspace" });
      await page.getByLabel("Name of the new workspace").fill("messy-e2e");
      await page.getByRole("button", { name: "Create dataset" }).click();
      await page.waitForURL(/\/dataset\/[0-9a-f-]+\/annotation-mode/, { timeout: 60_000 });
      const id = new URL(page.url()).pathname.split("/")[2]!;
      const metadata = await api<{ items: Array<{ name: string; title: string }> }>("GET", `/me/datasets/${id}/metadata-properties`);
      expect(metadata.items.map((m) => [m.name, m.title]).sort()).toEqual([
        ["stars_1-5", "Stars (1-5)"],
        ["stars_1-5_2", "stars_1-5"],
      ]);
      const dataset = await api<{ metadata: { mapping: { metadata: Array<{ source: string; target: string }> } } }>(
        "GET",
        `/datasets/${id}`,
      );
      expect(dataset.metadata.mapping.metadata).toEqual([
        { source: "Stars (1-5)", target: "stars_1-5" },
        { source: "stars_1-5", target: "stars_1-5_2" },
      ]);
      const questions = await api<{ items: Array<{ name: string; settings: { options: Array<{ value: string }> } }> }>(
        "GET",
        `/datasets/${id}/questions`,
      );
      expect(questions.items.find((q) => q.name === "label_selection_2")?.settings.options.map((o) => o.value)).toEqual([
        "neutral",
        "negative",
        "positive",
      ]);
      type Rec = { metadata: Record<string, number>; fields: Record<string, string>; suggestions: Array<{ value: unknown }> };
      await expect
        .poll(async () => (await api<{ items: Rec[] }>("GET", `/datasets/${id}/records?include=suggestions&limit=20`)).items.length, {
          timeout: 20_000,
        })
        .toBe(12);
      const first = (await api<{ items: Rec[] }>("GET", `/datasets/${id}/records?include=suggestions&limit=20`)).items.find(
        (r) => r.fields["Review Text"] === "Messy review number 1",
      )!;
      expect(first.metadata).toEqual({ "stars_1-5": 1, "stars_1-5_2": 5 });
      expect(first.suggestions.map((x) => x.value)).toEqual(["positive"]);
    } catch (error) {
      await screenshot(page, "dataset-creation-failure-messy-columns");
      throw error;
    } finally {
      await context.close();
    }
  }, 120_000);

  it("says when a repository is not on the Hub, and imports through the catch-all /:id route", async () => {
    const { context, page } = await signedIn();
    await page.goto(`${app.url}/new/${encodeURIComponent("nobody/missing-dataset")}`);
    await page.getByRole("heading", { name: "Dataset not found or available on Hugging Face" }).waitFor();
    // Gated repositories cannot be read anonymously by the browser either.
    await page.goto(`${app.url}/${encodeURIComponent("tessera/gated-demo")}`);
    await page.getByRole("heading", { name: "Dataset not found or available on Hugging Face" }).waitFor();
    await page.getByRole("link", { name: "Back to home page" }).click();
    await page.waitForURL(`${app.url}/`);
    await page.goto(`${app.url}/${encodeURIComponent("tessera/news-topics")}`);
    await page.getByRole("heading", { name: "Create a dataset from tessera/news-topics" }).waitFor();
    await page.getByLabel("Dataset name").fill("");
    await page.getByText("The dataset needs a name.").waitFor();
    expect(await page.getByRole("button", { name: "Create dataset" }).isDisabled()).toBe(true);
    await context.close();
  });

  it("rolls back and says so when the creation fails (duplicate name)", async () => {
    const { context, page } = await signedIn();
    const before = (await api<{ items: unknown[] }>("GET", "/me/datasets")).items.length;
    await page.goto(`${app.url}/new/${encodeURIComponent("tessera/news-topics")}`);
    await page.getByRole("button", { name: "Create dataset" }).waitFor();
    await page.getByLabel("Assign a workspace").selectOption({ label: "hub-e2e" });
    await page.getByRole("button", { name: "Create dataset" }).click();
    await page.getByText("The dataset could not be created.", { exact: false }).waitFor({ timeout: 20_000 });
    expect((await api<{ items: unknown[] }>("GET", "/me/datasets")).items.length).toBe(before);
    await context.close();
  });
});
