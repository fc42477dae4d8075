import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { parse as parseCsv } from "csv-parse/sync";
import { parquetWriteBuffer } from "hyparquet-writer";
import { launchBrowser, screenshot, startApp, type RunningApp } from "./harness.js";
import { ownerApi, signedInPage, type Api } from "./seed.js";

/**
 * Uploads through the dataset settings page in real Chromium: each format (CSV, TSV, JSON Lines, a
 * JSON array, Parquet) adds three records mapped by the proposed mapping plus the external id; a
 * row that does not fit its mapping is listed in a downloadable file; a malformed file is refused
 * with its row named.
 */
let app: RunningApp;
let browser: Browser;
let api: Api;
let page: Page;
let datasetId = "";
let dir = "";

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  api = await ownerApi(app);
  const ws = await api<{ id: string }>("POST", "/workspaces", { name: "upload-e2e" });
  const ds = await api<{ id: string }>("POST", "/datasets", { name: "uploads", workspace_id: ws.id });
  datasetId = ds.id;
  await api("POST", `/datasets/${ds.id}/fields`, { name: "text", title: "Text", required: true, settings: { type: "text" } });
  await api("POST", `/datasets/${ds.id}/questions`, {
    name: "label",
    title: "Label",
    required: true,
    settings: {
      type: "label_selection",
      options: [
        { value: "yes", text: "Yes" },
        { value: "no", text: "No" },
      ],
    },
  });
  await api("POST", `/datasets/${ds.id}/metadata-properties`, { name: "stars", title: "Stars", settings: { type: "integer" } });
  await api("PUT", `/datasets/${ds.id}/publish`);
  dir = mkdtempSync(join(tmpdir(), "tessera-upload-e2e-"));
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  page = await signedInPage(context, app);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const rows = (prefix: string) =>
  [1, 2, 3].map((i) => ({ key: `${prefix}-${i}`, text: `${prefix} text ${i}`, stars: i, label: i % 2 ? "yes" : "no" }));
const files: Record<string, (name: string) => string | Buffer> = {
  csv: (p) =>
    `key,text,stars,label\n${rows(p)
      .map((r) => `${r.key},"${r.text}",${r.stars},${r.label}`)
      .join("\n")}\n`,
  tsv: (p) =>
    `key\ttext\tstars\tlabel\n${rows(p)
      .map((r) => [r.key, r.text, r.stars, r.label].join("\t"))
      .join("\n")}\n`,
  jsonl: (p) =>
    `${rows(p)
      .map((r) => JSON.stringify(r))
      .join("\n")}\n`,
  json: (p) => JSON.stringify(rows(p)),
  parquet: (p) =>
    Buffer.from(
      parquetWriteBuffer({
        columnData: ["key", "text", "stars", "label"].map((name) => ({
          name,
          data: rows(p).map((r) => r[name as keyof ReturnType<typeof rows>[number]]),
        })),
      }),
    ),
};

async function openUpload(): Promise<void> {
  await page.goto(`${app.url}/dataset/${datasetId}/settings?tab=records`);
  await page.getByRole("heading", { name: "Add records from a file" }).waitFor();
}

async function pick(name: string, content: string | Buffer): Promise<void> {
  const path = join(dir, name);
  writeFileSync(path, content);
  await page.locator('input[type="file"]').setInputFiles(path);
}

const records = async () =>
  (
    await api<{
      items: Array<{ external_id: string; fields: { text: string }; metadata: { stars?: number }; suggestions: Array<{ value: unknown }> }>;
    }>("GET", `/datasets/${datasetId}/records?include=suggestions&limit=1000`)
  ).items;

describe("uploads on the dataset settings page in real Chromium", () => {
  for (const format of Object.keys(files)) {
    it(`adds the records of a ${format} file`, async () => {
      await openUpload();
      await pick(`data.${format}`, files[format]!(format));
      await page.getByText(`First rows of data.${format}`).waitFor();
      await page.getByRole("cell", { name: `${format} text 1` }).waitFor();
      // the proposed mapping: text → field, stars → metadata, label → suggestion; key becomes the external id
      expect(await page.getByRole("combobox", { name: "Map column text as" }).inputValue()).toBe("field");
      expect(await page.getByRole("combobox", { name: "Map column stars as" }).inputValue()).toBe("metadata");
      expect(await page.getByRole("combobox", { name: "Map column label as" }).inputValue()).toBe("suggestion");
      await page.getByRole("combobox", { name: "Map column key as" }).selectOption("external_id");
      if (format === "parquet") await screenshot(page, "upload-preview");
      await page.getByRole("button", { name: "Import" }).click();
      await page.getByText("Done: 3 rows stored, 0 failed").waitFor({ timeout: 30_000 });
      const mine = (await records()).filter((r) => r.external_id.startsWith(`${format}-`));
      expect(mine.map((r) => [r.external_id, r.fields.text, r.metadata.stars, r.suggestions[0]?.value])).toEqual([
        [`${format}-1`, `${format} text 1`, 1, "yes"],
        [`${format}-2`, `${format} text 2`, 2, "no"],
        [`${format}-3`, `${format} text 3`, 3, "yes"],
      ]);
    });
  }

  it("names the row of a malformed file, and lists the rows that did not fit their mapping", async () => {
    await openUpload();
    await pick("bad.jsonl", '{"text":"a"}\n{broken\n');
    await page.getByText(/The file cannot be imported: Row 2: not valid JSON/).waitFor();
    await pick("partial.csv", "key,text,stars\np-1,fine,1\np-2,bad stars,lots\n");
    await page.getByText("First rows of partial.csv").waitFor();
    await page.getByRole("combobox", { name: "Map column key as" }).selectOption("external_id");
    await page.getByRole("button", { name: "Import" }).click();
    await page.getByText("Done: 0 rows stored, 2 failed").waitFor({ timeout: 30_000 });
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download the rows that failed" }).click(),
    ]);
    const failed = parseCsv(readFileSync(await download.path()), { columns: true }) as Array<{
      row: string;
      column: string;
      message: string;
    }>;
    expect(failed.find((f) => f.row === "2")).toMatchObject({
      column: "stars",
      message: "Row 2, column `stars`: `lots` is not an integer",
    });
    expect((await records()).some((r) => r.external_id.startsWith("p-"))).toBe(false);
  });

  it("creates a new dataset from a file through the home page and the creation flow", async () => {
    await page.goto(`${app.url}/`);
    await page.getByRole("link", { name: "Upload a file" }).click();
    await page.waitForURL(`${app.url}/new-from-file`);
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ id: `n-${i + 1}`, review: `Review number ${i + 1}`, stars: (i % 5) + 1 }),
    );
    await pick("reviews.jsonl", `${lines.join("\n")}\n`);
    await page.getByRole("heading", { name: "New dataset from reviews.jsonl" }).waitFor();
    await page.getByRole("region", { name: "Record preview" }).getByText("Review number 1", { exact: true }).waitFor();
    await page.getByLabel("Assign a workspace").selectOption({ label: "New workspace" });
    await page.getByLabel("Name of the new workspace").fill("from-file");
    await screenshot(page, "new-dataset-from-file");
    await page.getByRole("button", { name: "Create dataset" }).click();
    await page.waitForURL(/\/dataset\/[0-9a-f-]+\/annotation-mode/, { timeout: 60_000 });
    const id = /\/dataset\/([0-9a-f-]+)\//.exec(page.url())![1]!;
    const created = await api<{ items: Array<{ external_id: string; fields: Record<string, string>; metadata: Record<string, number> }> }>(
      "GET",
      `/datasets/${id}/records?limit=100`,
    );
    expect(created.items).toHaveLength(12);
    expect(created.items[0]).toMatchObject({ external_id: "n-1", fields: { review: "Review number 1" }, metadata: { stars: 1 } });
    await page.getByText("Review number 1", { exact: true }).waitFor();
  });
});
