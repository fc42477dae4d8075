import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser, screenshot, signIn, startApp, type RunningApp } from "./harness.js";
import { accessToken, apiWithToken, signedInPage, type Api } from "./seed.js";

/** Dataset settings edits through the page in real Chromium, verified over the API; then deletion. */
let app: RunningApp;
let browser: Browser;
let context: BrowserContext;
let token = "";
let api: Api;
let datasetId = "";
let recordId = "";
let questionId = "";

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  token = await accessToken(app);
  api = apiWithToken(app, token);
  const ws = await api<{ id: string }>("POST", "/workspaces", { name: "settings-team" });
  datasetId = (await api<{ id: string }>("POST", "/datasets", { name: "settings-e2e", workspace_id: ws.id, guidelines: "Old guidelines" }))
    .id;
  await api("POST", `/datasets/${datasetId}/fields`, {
    name: "text",
    title: "Text",
    required: true,
    settings: { type: "text", use_markdown: false },
  });
  questionId = (
    await api<{ id: string }>("POST", `/datasets/${datasetId}/questions`, {
      name: "topic",
      title: "Topic",
      description: "Pick one",
      required: true,
      settings: { type: "label_selection", options: ["a", "b", "c", "d"].map((v) => ({ value: v, text: v.toUpperCase() })) },
    })
  ).id;
  await api("POST", `/datasets/${datasetId}/metadata-properties`, { name: "price", title: "Price", settings: { type: "float" } });
  await api("POST", `/datasets/${datasetId}/vectors-settings`, { name: "emb", title: "Embedding", dimensions: 3 });
  await api("PUT", `/datasets/${datasetId}/publish`);
  recordId = (
    await api<{ items: Array<{ id: string }> }>("POST", `/datasets/${datasetId}/records/bulk`, {
      items: [{ fields: { text: "hello" }, vectors: { emb: [1, 0, 0] } }],
    })
  ).items[0]!.id;
  context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
  await (await signedInPage(context, app)).close();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

async function open(tab = ""): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.url}/dataset/${datasetId}/settings${tab ? `?tab=${tab}` : ""}`);
  await page.getByRole("heading", { name: "Dataset settings", level: 1 }).waitFor();
  return page;
}

describe("dataset settings in real Chromium", () => {
  it("sets how long a record stays reserved for an annotator (minutes), refusing what the server would refuse", async () => {
    const page = await open();
    const timeout = page.getByRole("textbox", { name: "Reservation time-out (minutes)" });
    await expect.poll(() => timeout.inputValue()).toBe("5");
    const save = page.getByRole("button", { name: "Save" });
    await timeout.fill("2000");
    await page.getByText("The time-out can be at most 1440 minutes (one day).").waitFor();
    expect(await save.isDisabled()).toBe(true);
    await timeout.fill("2.5");
    await timeout.press("Enter");
    await page.getByRole("status").filter({ hasText: "Saved" }).first().waitFor();
    expect((await api<{ ttl_seconds: number }>("GET", `/datasets/${datasetId}/reservations`)).ttl_seconds).toBe(150);
    await page.reload();
    await expect.poll(() => page.getByRole("textbox", { name: "Reservation time-out (minutes)" }).inputValue()).toBe("2.5");
    await page.close();
  });

  it("edits guidelines (required, trimmed) and the minimum submitted responses", async () => {
    const page = await open();
    const guidelines = page.getByRole("textbox", { name: "Annotation guidelines" });
    await guidelines.fill("   ");
    await page.getByText("This field is required.").waitFor();
    expect(await page.getByRole("button", { name: "Update: Annotation guidelines" }).isDisabled()).toBe(true);
    await guidelines.fill("  Be **kind**.  ");
    await page.getByRole("button", { name: "Update: Annotation guidelines" }).click();
    await expect.poll(async () => (await api<{ guidelines: string }>("GET", `/datasets/${datasetId}`)).guidelines).toBe("Be **kind**.");
    await page.getByRole("spinbutton", { name: "Minimum submitted responses" }).fill("0");
    expect(await page.getByRole("button", { name: "Update: Task distribution" }).isDisabled()).toBe(true);
    await page.getByRole("spinbutton", { name: "Minimum submitted responses" }).fill("2");
    await page.getByRole("button", { name: "Update: Task distribution" }).click();
    await expect
      .poll(
        async () => (await api<{ distribution: { min_submitted: number } }>("GET", `/datasets/${datasetId}`)).distribution.min_submitted,
      )
      .toBe(2);
    await page.getByRole("switch", { name: "Allow extra metadata" }).check();
    await expect
      .poll(async () => (await api<{ allow_extra_metadata: boolean }>("GET", `/datasets/${datasetId}`)).allow_extra_metadata)
      .toBe(true);
    await screenshot(page, "dataset-settings-info");
    await page.close();
  });

  it("edits field, question, metadata and vector settings through their tabs (keyboard on the tab list)", async () => {
    const page = await open("fields");
    await page.getByRole("textbox", { name: "Title", exact: true }).fill("x".repeat(501));
    await page.getByText("This must be less than 500.").waitFor();
    await page.getByRole("textbox", { name: "Title", exact: true }).fill("Review text");
    await page.getByRole("switch", { name: "Use Markdown" }).check();
    await page.getByRole("button", { name: "Update: text" }).click();
    await expect
      .poll(
        async () =>
          (await api<{ items: Array<{ title: string; settings: { use_markdown: boolean } }> }>("GET", `/datasets/${datasetId}/fields`))
            .items[0],
      )
      .toMatchObject({ title: "Review text", settings: { use_markdown: true } });

    await page.getByRole("tab", { name: "Fields" }).focus();
    await page.keyboard.press("ArrowRight");
    await page.getByRole("tab", { name: "Questions", selected: true }).waitFor();
    await page.locator("#settings-panel-questions").getByRole("textbox", { name: "Title", exact: true }).fill("");
    await page.getByText("This field is required.").waitFor();
    await page.getByRole("textbox", { name: "Title", exact: true }).fill("Main topic");
    await page.getByRole("textbox", { name: "Description", exact: true }).fill("   ");
    await page.getByRole("button", { name: "Move A down" }).click();
    await page.getByRole("button", { name: "Update: topic" }).click();
    await expect
      .poll(async () => {
        const q = (
          await api<{
            items: Array<{ id: string; title: string; description: string | null; settings: { options: Array<{ value: string }> } }>;
          }>("GET", `/datasets/${datasetId}/questions`)
        ).items[0]!;
        return [q.title, q.description, q.settings.options.map((o) => o.value).join("")];
      })
      .toEqual(["Main topic", null, "bacd"]);

    // a tab is a query parameter: its panel follows the navigation, so the test waits for it before typing
    await page.getByRole("tab", { name: "Metadata" }).click();
    await page.locator("#settings-panel-metadata").waitFor();
    await page.getByRole("switch", { name: "Visible for annotators" }).uncheck();
    await page.getByRole("button", { name: "Update: price" }).click();
    await expect
      .poll(
        async () =>
          (await api<{ items: Array<{ visible_for_annotators: boolean }> }>("GET", `/me/datasets/${datasetId}/metadata-properties`))
            .items[0]!.visible_for_annotators,
      )
      .toBe(false);

    await page.getByRole("tab", { name: "Vectors" }).click();
    await page.locator("#settings-panel-vectors").getByRole("textbox", { name: "Title", exact: true }).fill("Sentence embedding");
    await page.getByRole("button", { name: "Update: emb" }).click();
    await expect
      .poll(async () => (await api<{ items: Array<{ title: string }> }>("GET", `/datasets/${datasetId}/vectors-settings`)).items[0]!.title)
      .toBe("Sentence embedding");
    await page.close();
  });

  it("orders span labels by drag and drop (pointer and keyboard) and keeps edited colours after a reload", async () => {
    const ws = await api<{ id: string }>("POST", "/workspaces", { name: "spans-team" });
    const spans = (await api<{ id: string }>("POST", "/datasets", { name: "spans-e2e", workspace_id: ws.id, guidelines: "Mark entities" }))
      .id;
    await api("POST", `/datasets/${spans}/fields`, { name: "text", title: "Text", required: true, settings: { type: "text" } });
    await api("POST", `/datasets/${spans}/questions`, {
      name: "entities",
      title: "Entities",
      required: true,
      settings: {
        type: "span",
        field: "text",
        options: [
          ["org", "ORG"],
          ["per", "PER"],
          ["loc", "LOC"],
        ].map(([value, text]) => ({ value, text })),
      },
    });
    await api("PUT", `/datasets/${spans}/publish`);
    type SpanQuestion = { settings: { options: Array<{ value: string; color?: string }> } };
    const stored = async () => (await api<{ items: SpanQuestion[] }>("GET", `/datasets/${spans}/questions`)).items[0]!.settings.options;
    const page = await context.newPage();
    await page.goto(`${app.url}/dataset/${spans}/settings?tab=questions`);
    const labelOrder = async () =>
      Promise.all((await page.getByRole("textbox", { name: /^Text of the label/ }).all()).map((i) => i.inputValue()));
    await expect.poll(labelOrder).toEqual(["ORG", "PER", "LOC"]);

    // Pointer: drag LOC's handle above ORG.
    const from = (await page.getByRole("button", { name: "Drag LOC to reorder" }).boundingBox())!;
    const to = (await page.getByRole("button", { name: "Drag ORG to reorder" }).boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 - 6, { steps: 3 });
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2 - 6, { steps: 12 });
    await page.mouse.up();
    await expect.poll(labelOrder).toEqual(["LOC", "ORG", "PER"]);

    // Keyboard: Space picks ORG up, ArrowDown moves it one place, Space drops it.
    await page.getByRole("button", { name: "Drag ORG to reorder" }).focus();
    // The moves are announced (translated) in dnd-kit's live region.
    await page.keyboard.press("Space");
    await page.getByText("Picked up ORG, position 2 of 3.").waitFor({ state: "attached" });
    // dnd-kit attaches its arrow-key listener a frame after the pick-up; on a loaded machine the first
    // press can land before it. Position 3 is the last one, so pressing again cannot overshoot.
    const moved = page.getByText("ORG moved to position 3 of 3.");
    for (let attempt = 0; attempt < 5; attempt++) {
      await page.keyboard.press("ArrowDown");
      if (
        await moved.waitFor({ state: "attached", timeout: 3000 }).then(
          () => true,
          () => false,
        )
      )
        break;
    }
    await moved.waitFor({ state: "attached" });
    await page.keyboard.press("Space");
    await expect.poll(labelOrder).toEqual(["LOC", "PER", "ORG"]);

    await page.getByRole("textbox", { name: "Colour of PER" }).fill("#ff0000");
    await page.getByText("The value color must be HSL for now.").waitFor();
    expect(await page.getByRole("button", { name: "Update: entities" }).isDisabled()).toBe(true);
    await page.getByRole("textbox", { name: "Colour of PER" }).fill("hsl(10, 70%, 60%)");
    await page.getByRole("button", { name: "Update: entities" }).click();
    await expect.poll(async () => (await stored()).map((o) => o.value)).toEqual(["loc", "per", "org"]);
    expect((await stored()).find((o) => o.value === "per")?.color).toBe("hsl(10, 70%, 60%)");

    await page.reload();
    await expect.poll(labelOrder).toEqual(["LOC", "PER", "ORG"]);
    expect(await page.getByRole("textbox", { name: "Colour of PER" }).inputValue()).toBe("hsl(10, 70%, 60%)");
    await screenshot(page, "dataset-settings-span-labels");
    await page.close();
  });

  it("locks the distribution once the dataset has responses", async () => {
    await api("POST", `/records/${recordId}/responses`, { status: "submitted", values: { topic: { value: "a" } } });
    const page = await open();
    await page.getByText("Distribution settings can't be modified for a dataset containing user responses").first().waitFor();
    expect(await page.getByRole("spinbutton", { name: "Minimum submitted responses" }).isDisabled()).toBe(true);
    await page.close();
  });

  it("deletes the dataset after confirmation and lands on home", async () => {
    const page = await open("danger");
    await page.getByText("Be careful, this action is not reversible").waitFor();
    await page.getByRole("button", { name: "Delete dataset" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("You are about to delete settings-e2e from workspace settings-team. This action cannot be undone").waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("button", { name: "Delete dataset" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Yes, delete" }).click();
    await page.waitForURL(`${app.url}/`);
    const res = await fetch(`${app.url}/api/v1/datasets/${datasetId}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(404);
    void questionId;
    await page.close();
  });

  it("shows annotators a clear not-allowed state", async () => {
    const annotator = await api<{ id: string }>("POST", "/users", {
      username: "annie",
      password: "annie-password-1",
      first_name: "Annie",
      role: "annotator",
    });
    expect(annotator.id).toBeTruthy();
    const other = await browser.newContext({ locale: "en-US" });
    const page = await other.newPage();
    await page.goto(`${app.url}/dataset/${datasetId}/settings`);
    await signIn(page, app, "annie", "annie-password-1");
    await page.getByRole("heading", { name: "Not allowed" }).waitFor();
    await page.getByText("Only admins and owners can change the settings of a dataset.").waitFor();
    await other.close();
  });
});
