import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, screenshot, startApp, type RunningApp } from "./harness.js";
import { ownerApi, signedInPage, type Api } from "./seed.js";

/**
 * Reservations of the team's queue (issue 29) in real Chromium: two annotators in two browser
 * contexts get different records; one who finds every record reserved is told so and gets them
 * back when the teammate leaves; the owner sees the records in progress per annotator.
 */
let app: RunningApp;
let browser: Browser;
let api: Api;
let workspaceId = "";
const PASSWORD = "annotator-password-1";

async function dataset(name: string, records: number): Promise<string> {
  const ds = await api<{ id: string }>("POST", "/datasets", {
    name,
    workspace_id: workspaceId,
    distribution: { strategy: "overlap", min_submitted: 1 },
  });
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
  await api("PUT", `/datasets/${ds.id}/publish`);
  const items = Array.from({ length: records }, (_, i) => ({
    external_id: `${name}-${i}`,
    fields: { text: `${name} record number ${i}` },
  }));
  await api("POST", `/datasets/${ds.id}/records/bulk`, { items });
  return ds.id;
}

async function annotator(username: string): Promise<void> {
  const user = await api<{ id: string }>("POST", "/users", { username, password: PASSWORD, first_name: username, role: "annotator" });
  await api("POST", `/workspaces/${workspaceId}/users`, { user_id: user.id });
}

async function openAs(username: string, datasetId: string): Promise<Page> {
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1300, height: 900 } });
  const page = await signedInPage(context, app, username, PASSWORD);
  await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode`);
  return page;
}

/** The number in "<name> record number N" shown in focus view. */
async function shownRecord(page: Page, name: string): Promise<number> {
  const text = page.getByText(new RegExp(`${name} record number \\d+`)).first();
  await text.waitFor();
  return Number(/(\d+)$/.exec((await text.textContent())!.trim())![1]);
}

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  api = await ownerApi(app);
  workspaceId = (await api<{ id: string }>("POST", "/workspaces", { name: "reservations-e2e" })).id;
  await annotator("ann-alice");
  await annotator("ann-bruno");
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe("reservations of the team's queue in real Chromium", () => {
  it("gives two annotators in two browser contexts different records, and the owner sees them in progress", async () => {
    const id = await dataset("sprint", 14);
    const alice = await openAs("ann-alice", id);
    const first = await shownRecord(alice, "sprint");
    const bruno = await openAs("ann-bruno", id);
    const second = await shownRecord(bruno, "sprint");
    expect(first).toBe(0);
    // alice's queue took the first window (10 records and their buffer): bruno gets the next free one
    expect(second).toBeGreaterThanOrEqual(10);

    // alice answers: her next record is her own next one, still held by nobody else
    // one required label question: picking the label submits it
    await alice.getByRole("radio", { name: /Yes/ }).click();
    await expect.poll(() => shownRecord(alice, "sprint"), { timeout: 15_000 }).toBe(1);

    const ownerContext = await browser.newContext({ locale: "en-US", viewport: { width: 1300, height: 900 } });
    const owner = await signedInPage(ownerContext, app);
    await owner.goto(`${app.url}/dataset/${id}/annotation-mode`);
    const inProgress = owner.getByTestId("records-in-progress");
    await expect.poll(async () => (await inProgress.textContent()) ?? "", { timeout: 15_000 }).toMatch(/ann-alice: \d+ records/);
    expect(await inProgress.textContent()).toMatch(/ann-bruno: \d+ records/);
    await screenshot(owner, "reservations-in-progress");
    await owner.getByRole("button", { name: "Release the records reserved by ann-bruno" }).click();
    await owner.getByText("The records reserved by ann-bruno are back in the queue").waitFor();
    await Promise.all([alice.context().close(), bruno.context().close(), ownerContext.close()]);
  }, 90_000);

  it("tells an annotator that the rest is being worked on, and gives the records back when the teammate leaves", async () => {
    const id = await dataset("tail", 3);
    const alice = await openAs("ann-alice", id);
    expect(await shownRecord(alice, "tail")).toBe(0);
    const bruno = await openAs("ann-bruno", id);
    await bruno.getByRole("heading", { name: "The rest is being worked on by 1 teammate" }).waitFor();
    await screenshot(bruno, "reservations-rest-in-progress");
    // alice leaves the dataset: her records go back, and bruno's page looks again on its own
    await alice.goto(`${app.url}/`);
    await expect.poll(() => shownRecord(bruno, "tail"), { timeout: 20_000 }).toBe(0);
    await Promise.all([alice.context().close(), bruno.context().close()]);
  }, 90_000);
});
