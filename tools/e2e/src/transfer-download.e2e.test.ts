import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { parse as parseCsv } from "csv-parse/sync";
import { parquetReadObjects } from "hyparquet";
import { launchBrowser, screenshot, startApp, type RunningApp } from "./harness.js";
import { ownerApi, signedInPage, type Api } from "./seed.js";

/**
 * Downloads from the annotation page in real Chromium: each format, the page's current filters or
 * every record, and an annotator's download holding only their own responses. 12 records "Doc N";
 * the owner submits Doc 1-3 (label yes), the annotator submits Doc 1 (label no).
 */
let app: RunningApp;
let browser: Browser;
let api: Api;
let datasetId = "";
const ANNOTATOR = { username: "dora", password: "dora-password-1" };

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  api = await ownerApi(app);
  const ws = await api<{ id: string }>("POST", "/workspaces", { name: "download-e2e" });
  const annotator = await api<{ id: string }>("POST", "/users", {
    first_name: "Dora",
    username: ANNOTATOR.username,
    password: ANNOTATOR.password,
    role: "annotator",
  });
  await api("POST", `/workspaces/${ws.id}/users`, { user_id: annotator.id });
  const ds = await api<{ id: string }>("POST", "/datasets", {
    name: "downloads",
    workspace_id: ws.id,
    distribution: { strategy: "overlap", min_submitted: 2 },
  });
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
  await api("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "source",
    title: "Source",
    settings: { type: "terms", values: null },
    visible_for_annotators: false,
  });
  await api("PUT", `/datasets/${ds.id}/publish`);
  const created = await api<{ items: Array<{ id: string }> }>("POST", `/datasets/${ds.id}/records/bulk`, {
    items: Array.from({ length: 12 }, (_, i) => ({
      external_id: `doc-${i + 1}`,
      fields: { text: `Doc ${i + 1}` },
      metadata: { source: "web" },
    })),
  });
  for (const record of created.items.slice(0, 3))
    await api("POST", `/records/${record.id}/responses`, { status: "submitted", values: { label: { value: "yes" } } });
  const annotatorToken = await fetch(`${app.url}/api/v1/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(ANNOTATOR),
  }).then((r) => r.json() as Promise<{ access_token: string }>);
  await fetch(`${app.url}/api/v1/records/${created.items[0]!.id}/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${annotatorToken.access_token}`, "content-type": "application/json" },
    body: JSON.stringify({ status: "submitted", values: { label: { value: "no" } } }),
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function openAs(username: string, password: string, query = ""): Promise<Page> {
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  const page = await signedInPage(context, app, username, password);
  await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode${query}`);
  await page.getByRole("group", { name: /Label/ }).waitFor();
  return page;
}

/** Opens the Download dialog, picks the format and records, and returns the saved file's name and bytes. */
async function download(
  page: Page,
  format: "JSON Lines" | "CSV" | "Parquet",
  scope: "Records matching the current filters" | "All records",
) {
  await page.getByRole("button", { name: "Download", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Download records" });
  await dialog.getByRole("radio", { name: format, exact: true }).check();
  await dialog.getByRole("radio", { name: scope }).check();
  const [file] = await Promise.all([page.waitForEvent("download"), dialog.getByRole("button", { name: "Download", exact: true }).click()]);
  await dialog.getByText(/^Downloaded /).waitFor();
  const path = await file.path();
  const name = file.suggestedFilename();
  await dialog.getByRole("button", { name: "Close" }).click();
  return { name, bytes: readFileSync(path) };
}

interface Line {
  fields: { text: string };
  metadata: Record<string, unknown>;
  responses: Array<{ username: string; values: { label?: string } }>;
}
const jsonl = (bytes: Buffer) =>
  bytes
    .toString("utf8")
    .trim()
    .split("\n")
    .filter((l) => l)
    .map((l) => JSON.parse(l) as Line);

describe("downloads from the annotation page in real Chromium", () => {
  it("owner: the current filters as CSV, every record as JSON Lines and as Parquet", async () => {
    const page = await openAs("owner", app.ownerPassword);
    await page.getByRole("combobox", { name: "Status" }).selectOption("submitted");
    await page.waitForURL(/submitted/);

    const csv = await download(page, "CSV", "Records matching the current filters");
    expect(csv.name).toBe("downloads.csv");
    const rows = parseCsv(csv.bytes, { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((r) => r.external_id)).toEqual(["doc-1", "doc-2", "doc-3"]);
    expect(JSON.parse(rows[0]!["label.responses"]!)).toEqual(["yes", "no"]);
    expect(rows[0]!["metadata.source"]).toBe("web");
    await screenshot(page, "download-dialog");

    const all = await download(page, "JSON Lines", "All records");
    expect(all.name).toBe("downloads.jsonl");
    const records = jsonl(all.bytes);
    expect(records.map((r) => r.fields.text)).toEqual(Array.from({ length: 12 }, (_, i) => `Doc ${i + 1}`));
    expect(records[0]!.responses.map((r: Line["responses"][number]) => [r.username, r.values.label])).toEqual([
      ["owner", "yes"],
      [ANNOTATOR.username, "no"],
    ]);

    const pq = await download(page, "Parquet", "All records");
    expect(pq.name).toBe("downloads.parquet");
    const file = new Uint8Array(pq.bytes).buffer;
    const pqRows = (await parquetReadObjects({ file })) as Record<string, unknown>[];
    expect(pqRows).toHaveLength(12);
    expect(pqRows[1]).toMatchObject({
      external_id: "doc-2",
      text: "Doc 2",
      "label.responses": ["yes"],
      "label.responses.users": ["owner"],
    });
  });

  it("annotator: the download holds only their own responses and no hidden metadata", async () => {
    const page = await openAs(ANNOTATOR.username, ANNOTATOR.password);
    await page.getByRole("button", { name: "Download", exact: true }).click();
    await page.getByText("Your download holds only your own responses.").waitFor();
    await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();
    const all = await download(page, "JSON Lines", "All records");
    const records = jsonl(all.bytes);
    expect(records).toHaveLength(12);
    expect(records[0]!.responses.map((r: Line["responses"][number]) => [r.username, r.values.label])).toEqual([[ANNOTATOR.username, "no"]]);
    expect(records[1]!.responses).toEqual([]);
    expect(records[0]!.metadata).toEqual({});
    // the annotator's pending queue: every record but Doc 1 (which they submitted)
    const pending = await download(page, "CSV", "Records matching the current filters");
    const rows = parseCsv(pending.bytes, { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.map((r) => r.external_id)).toEqual(Array.from({ length: 11 }, (_, i) => `doc-${i + 2}`));
  });
});
