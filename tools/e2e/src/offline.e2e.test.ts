import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { CHROMIUM_ARGS, chromiumPath } from "@tessera/test-harness/browser";
import { launchBrowser, screenshot, signIn, startApp, type RunningApp } from "./harness.js";
import { ownerApi, signedInPage, type Api } from "./seed.js";

/**
 * No annotator's work is lost (issue 24), in real Chromium against the real server: a typed answer survives a
 * killed browser process; answers given offline or while the server answers 503 reach it exactly once, in
 * order, when it is back; a conflict with a second tab is shown and chosen on.
 */
let app: RunningApp;
let browser: Browser;
let api: Api;
let datasetId = "";
let recordIds: string[] = [];

interface StoredResponse {
  status: string;
  values: Record<string, { value: unknown }>;
  inserted_at: string;
  user_id: string;
}
interface StoredRecord {
  id: string;
  external_id: string;
  responses?: StoredResponse[];
}

async function seed(): Promise<void> {
  api = await ownerApi(app);
  const ws = await api<{ id: string }>("POST", "/workspaces", { name: "offline-e2e" });
  const ds = await api<{ id: string }>("POST", "/datasets", { name: "offline-answers", workspace_id: ws.id });
  datasetId = ds.id;
  await api("POST", `/datasets/${ds.id}/fields`, {
    name: "text",
    title: "Text",
    required: true,
    settings: { type: "text", use_markdown: false },
  });
  await api("POST", `/datasets/${ds.id}/questions`, {
    name: "sentiment",
    title: "Sentiment",
    required: true,
    settings: {
      type: "label_selection",
      options: [
        { value: "positive", text: "Positive" },
        { value: "negative", text: "Negative" },
      ],
    },
  });
  await api("POST", `/datasets/${ds.id}/questions`, {
    name: "comment",
    title: "Comment",
    required: false,
    settings: { type: "text", use_markdown: false },
  });
  await api("PUT", `/datasets/${ds.id}/publish`);
  const items = Array.from({ length: 120 }, (_, i) => ({ fields: { text: `Offline record ${i + 1}` }, external_id: `off-${i + 1}` }));
  const created = await api<{ items: Array<{ id: string }> }>("POST", `/datasets/${ds.id}/records/bulk`, { items });
  recordIds = created.items.map((r) => r.id);
}

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  await seed();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const annotationUrl = (query = "") => `${app.url}/dataset/${datasetId}/annotation-mode${query}`;

async function openAnnotation(page: Page, query = ""): Promise<void> {
  await page.goto(annotationUrl(query));
  await page
    .getByRole("group", { name: /Sentiment/ })
    .first()
    .waitFor();
}

/** The owner's responses to records, by record id. */
async function responses(ids: string[]): Promise<Map<string, StoredResponse>> {
  const out = new Map<string, StoredResponse>();
  for (const id of ids) {
    const record = await api<StoredRecord>("GET", `/records/${id}`);
    const mine = record.responses ?? [];
    expect(mine.length).toBeLessThanOrEqual(1);
    if (mine[0]) out.set(id, mine[0]);
  }
  return out;
}

/** Counts the response writes (POST/PUT) the page's requests got answered, by status. */
function countWrites(page: Page): Map<number, number> {
  const counts = new Map<number, number>();
  page.on("response", (response) => {
    const method = response.request().method();
    if (
      (method === "POST" && /\/api\/v1\/records\/[^/]+\/responses$/.test(response.url())) ||
      (method === "PUT" && /\/api\/v1\/responses\//.test(response.url()))
    ) {
      counts.set(response.status(), (counts.get(response.status()) ?? 0) + 1);
    }
  });
  return counts;
}

const shownRecord = (page: Page) => page.locator("article.record-card[data-record-id]").first().getAttribute("data-record-id");

/** Answers `count` records one after the other in focus view (label, Submit, the next record shows); returns their ids. */
async function submitInFocus(page: Page, count: number, label: RegExp): Promise<string[]> {
  const given: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = (await shownRecord(page))!;
    given.push(id);
    await page.getByRole("radio", { name: label }).click();
    await page.getByRole("button", { name: /Submit/ }).click();
    await expect.poll(() => shownRecord(page)).not.toBe(id);
  }
  return given;
}

/** The files under `dir` whose bytes contain `text`. */
function filesContaining(dir: string, text: string): string[] {
  const needle = Buffer.from(text);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((file) => readFileSync(file).includes(needle));
}

/** Debian's Chromium started by hand on a profile directory, so that the test can kill the process like a crash. */
async function startChromium(profile: string): Promise<{ process: ChildProcess; browser: Browser }> {
  // its own process group: the crash below kills the browser with all its processes (renderer, storage, network)
  const child = spawn(
    chromiumPath(),
    [...CHROMIUM_ARGS, "--headless=new", `--user-data-dir=${profile}`, "--remote-debugging-port=0", "about:blank"],
    { stdio: ["ignore", "ignore", "pipe"], detached: true },
  );
  const endpoint = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`Chromium did not start: ${output}`)), 30_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}): ${output}`));
    });
  });
  return { process: child, browser: await chromium.connectOverCDP(endpoint) };
}

describe("offline answers in real Chromium", () => {
  // The browser is started by hand (not by playwright's launch, which turns the back/forward cache off), as a user's
  // is: the page left right after sign-in can be frozen in that cache while it creates the offline database, which
  // stopped every later page from keeping forms (docs/offline-answers.md, "Crash safety").
  it("a typed answer survives a killed browser process: after a restart on the same profile it is back, marked as unsent", async () => {
    const profile = mkdtempSync(join(tmpdir(), "tessera-profile-"));
    let firstPid: number | undefined;
    try {
      const first = await startChromium(profile);
      firstPid = first.process.pid;
      const context = first.browser.contexts()[0]!;
      const page = await signedInPage(context, app);
      // a submitted record: its changes are not autosaved to the server (they would be kept there too), only here
      const record = recordIds[recordIds.length - 1]!;
      await api("POST", `/records/${record}/responses`, { status: "submitted", values: { sentiment: { value: "positive" } } });
      await openAnnotation(page, "?_status=submitted");
      expect(await shownRecord(page)).toBe(record);
      const text = "Half an answer, typed on a train";
      await page.getByRole("textbox", { name: "Comment" }).pressSequentially(text, { delay: 10 });
      // the app says when the latest change is on disk (its IndexedDB transaction committed with strict durability):
      // from then on a crash loses nothing. No pause: the kill follows at once.
      await expect.poll(() => page.locator("section.form-panel").getAttribute("data-form-kept")).toBe("kept");
      await page.getByText("Your changes are kept in this browser").waitFor();
      const exited = new Promise((resolve) => first.process.once("exit", resolve));
      process.kill(-first.process.pid!, "SIGKILL"); // a crash of the whole browser: no unload, no clean shutdown
      await exited;
      // no process of the old browser may still hold the profile when the new one starts
      await expect
        .poll(
          () => {
            try {
              process.kill(-first.process.pid!, 0);
              return "alive";
            } catch {
              return "gone";
            }
          },
          { timeout: 10_000 },
        )
        .toBe("gone");
      // and it was on disk before the kill: the profile's IndexedDB files hold the typed text
      expect(filesContaining(join(profile, "Default", "IndexedDB"), text).length).toBeGreaterThan(0);

      const second = await startChromium(profile);
      try {
        const again = await second.browser.contexts()[0]!.newPage();
        await again.goto(annotationUrl("?_status=submitted"));
        // the session may or may not have been written to disk before the crash: signing in again also restores it
        const form = again.getByRole("group", { name: /Sentiment/ });
        await again.getByLabel("Username").or(form).first().waitFor();
        if (again.url().includes("/sign-in")) {
          await signIn(again, app);
          await again.waitForURL(/annotation-mode/);
        }
        await again.getByRole("group", { name: /Sentiment/ }).waitFor();
        expect(await shownRecord(again)).toBe(record);
        await expect.poll(() => again.getByRole("textbox", { name: "Comment" }).inputValue()).toBe(text);
        await again.getByText("Restored from this browser").waitFor();
        await screenshot(again, "offline-restored-after-crash");
        expect((await responses([record])).get(record)?.values["comment"]).toBeUndefined(); // only in this browser
        // Reset gives the work up: gone from the browser too
        await again.getByRole("button", { name: "Reset" }).click();
        expect(await again.getByRole("textbox", { name: "Comment" }).inputValue()).toBe("");
        await again.reload();
        await again.getByRole("group", { name: /Sentiment/ }).waitFor();
        await again.waitForTimeout(500);
        expect(await again.getByRole("textbox", { name: "Comment" }).inputValue()).toBe("");
      } finally {
        await second.browser.close().catch(() => undefined);
        try {
          process.kill(-second.process.pid!, "SIGKILL");
        } catch {
          /* already gone */
        }
      }
    } finally {
      // a test that failed before the crash leaves no browser behind
      try {
        if (firstPid) process.kill(-firstPid, "SIGKILL");
      } catch {
        /* already gone */
      }
      rmSync(profile, { recursive: true, force: true });
    }
  }, 120_000);

  it("offline (network emulation): 20 answers given in bulk and focus view are counted, kept, and reach the server exactly once, in order, when it is back", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await signedInPage(context, app);
    const writes = countWrites(page);
    await openAnnotation(page, "?_page=1~25");
    const onPage = await page.locator("article[data-record-id]").evaluateAll((els) => els.map((e) => e.getAttribute("data-record-id")!));
    const chosen = onPage.slice(0, 15);
    await context.setOffline(true);
    for (let i = 0; i < chosen.length; i++) await page.getByRole("checkbox", { name: `Select record off-${i + 1}`, exact: true }).check();
    await page.getByText("15 records selected").waitFor();
    await page
      .getByRole("radio", { name: /Positive/ })
      .first()
      .click();
    await page.getByRole("button", { name: /Submit/ }).click();
    await page.getByText(/No connection: 15 answers are kept on this device/).waitFor();
    await page.locator('[data-outbox-waiting="15"]').waitFor();
    expect(writes.get(201) ?? 0).toBe(0);
    // still offline, leaving the page warns
    let warned = false;
    page.once("dialog", (dialog) => {
      warned = dialog.type() === "beforeunload";
      void dialog.dismiss();
    });
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => warned).toBe(true);
    expect(page.isClosed()).toBe(false);
    await screenshot(page, "offline-bulk-queued");
    await context.setOffline(false);
    await expect.poll(async () => (await responses(chosen)).size, { timeout: 30_000 }).toBe(15);
    await page.locator("[data-outbox-waiting]").waitFor({ state: "detached" });

    // focus view: the queue goes on from the records already loaded
    const focus = await context.newPage();
    const focusWrites = countWrites(focus);
    await openAnnotation(focus);
    await focus.waitForTimeout(500); // the prefetch buffer
    await context.setOffline(true);
    const given = await submitInFocus(focus, 5, /Negative/);
    await focus.locator('[data-outbox-waiting="5"]').waitFor();
    await context.setOffline(false);
    await expect.poll(async () => (await responses(given)).size, { timeout: 30_000 }).toBe(5);
    await focus.locator("[data-outbox-waiting]").waitFor({ state: "detached" });

    const all = await responses([...chosen, ...given]);
    expect([...chosen, ...given].map((id) => all.get(id)?.status)).toEqual(Array(20).fill("submitted"));
    expect(given.map((id) => all.get(id)?.values["sentiment"]?.value)).toEqual(Array(5).fill("negative"));
    // in the order given, each written once
    const times = [...chosen, ...given].map((id) => all.get(id)!.inserted_at);
    expect([...times].sort()).toEqual(times);
    // both pages share the browser's outbox: whichever holds the send lock sends, and no answer is written twice
    expect((writes.get(201) ?? 0) + (focusWrites.get(201) ?? 0)).toBe(20);
    expect([...writes.keys(), ...focusWrites.keys()].filter((s) => s !== 201)).toEqual([]);
    await context.close();
  }, 120_000);

  it("while the server answers 503, 20 records are submitted one after the other in focus view; all reach it exactly once, in order, with back-off", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await signedInPage(context, app);
    let down = true;
    const attempts: number[] = [];
    await page.route(/\/api\/v1\/(records\/[^/]+\/responses|responses\/[^/]+)$/, async (route) => {
      if (down) {
        attempts.push(Date.now());
        await route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ detail: "Service Unavailable" }) });
      } else await route.continue();
    });
    const writes = countWrites(page);
    await openAnnotation(page);
    const given = await submitInFocus(page, 20, /Positive/);
    await page.locator('[data-outbox-waiting="20"]').waitFor();
    await expect.poll(() => attempts.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
    // back-off: the attempts spread out instead of hammering the server
    const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!);
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(900);
    expect(attempts.length).toBeLessThan(20);
    expect((await responses(given)).size).toBe(0);
    down = false;
    await expect.poll(async () => (await responses(given)).size, { timeout: 60_000 }).toBe(20);
    await page.locator("[data-outbox-waiting]").waitFor({ state: "detached" });
    const all = await responses(given);
    const times = given.map((id) => all.get(id)!.inserted_at);
    expect([...times].sort()).toEqual(times);
    expect(writes.get(201)).toBe(20);
    await context.close();
  }, 180_000);

  it("a server answering 429 with Retry-After is not asked again before that time; then the answer lands once", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    const page = await signedInPage(context, app);
    let busy = true;
    const attempts: number[] = [];
    await page.route(/\/api\/v1\/(records\/[^/]+\/responses|responses\/[^/]+)$/, async (route) => {
      if (busy) {
        attempts.push(Date.now());
        await route.fulfill({
          status: 429,
          headers: { "Retry-After": "3" },
          contentType: "application/json",
          body: JSON.stringify({ detail: "Too Many Requests" }),
        });
      } else await route.continue();
    });
    const writes = countWrites(page);
    await openAnnotation(page);
    const [given] = await submitInFocus(page, 1, /Positive/);
    await page.locator('[data-outbox-waiting="1"]').waitFor();
    await expect.poll(() => attempts.length, { timeout: 20_000 }).toBe(2);
    // without Retry-After the first back-off is about 1 s
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(2900);
    busy = false;
    await expect.poll(async () => (await responses([given!])).size, { timeout: 20_000 }).toBe(1);
    await page.locator("[data-outbox-waiting]").waitFor({ state: "detached" });
    expect(writes.get(201)).toBe(1);
    await context.close();
  }, 120_000);

  it("a browser whose IndexedDB cannot be opened (private window): the annotator is told, and answers still reach the server", async () => {
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    // as in some private windows: every open fails
    await context.addInitScript(() => {
      IDBFactory.prototype.open = () => {
        throw new DOMException("A mutation operation was attempted on a database that did not allow mutations.", "InvalidStateError");
      };
    });
    const page = await signedInPage(context, app);
    const writes = countWrites(page);
    await openAnnotation(page);
    await page.getByRole("alert").filter({ hasText: "This browser cannot keep your answers on this device" }).waitFor();
    const record = (await shownRecord(page))!;
    await page.getByRole("textbox", { name: "Comment" }).fill("sent without a disk");
    await expect.poll(() => page.locator("section.form-panel").getAttribute("data-form-kept")).toBe("failed");
    await page.getByRole("radio", { name: /Negative/ }).click();
    await page.getByRole("button", { name: /Submit/ }).click();
    await expect.poll(() => shownRecord(page)).not.toBe(record);
    await expect
      .poll(async () => (await responses([record])).get(record)?.values["comment"]?.value, { timeout: 20_000 })
      .toBe("sent without a disk");
    expect((await responses([record])).get(record)?.status).toBe("submitted");
    await screenshot(page, "offline-storage-unavailable");
    expect(writes.get(201)).toBe(1);
    await context.close();
  }, 120_000);

  // Two tabs of one user share the browser's outbox; whichever holds the send lock sends the next answer, so tab B's
  // answer may go out from tab A (under load it does now and then; here B's own requests fail to make it so). Either
  // way tab A's work, started on the version both tabs showed, is not carried over B's answer: A meets the conflict.
  it.each([
    { sender: "tab B itself", n: 1, bFails: false },
    { sender: "tab A, as B's own requests answer 503", n: 2, bFails: true },
  ])(
    "a conflict from a second tab is shown with both answers, B's answer sent by $sender; 'Keep mine' writes it over the other, once",
    async ({ n, bFails }) => {
      const writeUrl = /\/api\/v1\/(records\/[^/]+\/responses|responses\/[^/]+)$/;
      const mine = `my reasons (${n})`;
      const theirs = `from the other tab (${n})`;
      const comment = async (id: string) => (await responses([id])).get(id)?.values["comment"]?.value;
      // a submitted record (no autosave: its version on the server changes only by the tabs' Submits)
      const seeded = recordIds[recordIds.length - 1 - n]!;
      await api("POST", `/records/${seeded}/responses`, { status: "submitted", values: { sentiment: { value: "positive" } } });
      const context: BrowserContext = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
      const tabA = await signedInPage(context, app);
      const writesA = countWrites(tabA);
      await openAnnotation(tabA, "?_status=submitted");
      const record = (await shownRecord(tabA))!;
      const tabB = await context.newPage();
      const writesB = countWrites(tabB);
      if (bFails) {
        await tabB.route(writeUrl, (route) =>
          route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ detail: "Service Unavailable" }) }),
        );
      }
      await openAnnotation(tabB, "?_status=submitted");
      expect(await shownRecord(tabB)).toBe(record);
      // tab A starts answering; tab B answers the same record and submits first
      await tabA.getByRole("textbox", { name: "Comment" }).fill(mine);
      await expect.poll(() => tabA.locator("section.form-panel").getAttribute("data-form-kept")).toBe("kept");
      await tabB.getByRole("textbox", { name: "Comment" }).fill(theirs);
      await tabB.getByRole("button", { name: /Submit/ }).click();
      await expect.poll(() => comment(record), { timeout: 30_000 }).toBe(theirs);
      if (bFails) {
        await expect.poll(() => writesA.get(200)).toBe(1); // B's answer went out from tab A
        await tabB.unroute(writeUrl);
      }
      // tab A, still holding its work on the version it started on, submits: not silently written over
      await tabA.getByRole("button", { name: /Submit/ }).click();
      const choice = tabA.locator(`.outbox-choice[data-outbox-record="${record}"]`);
      await choice.waitFor({ timeout: 30_000 });
      expect(await choice.locator('td[data-side="mine"]').allTextContents()).toEqual(expect.arrayContaining([mine]));
      expect(await choice.locator('td[data-side="server"]').allTextContents()).toEqual(expect.arrayContaining([theirs]));
      await tabA.locator("[data-outbox-choices='1']").waitFor();
      // the other tab of the dataset lists it too
      await tabB.locator(`.outbox-choice[data-outbox-record="${record}"]`).waitFor();
      expect(await comment(record)).toBe(theirs);
      await screenshot(tabA, `offline-conflict-${n}`);
      await choice.getByRole("button", { name: "Keep mine" }).click();
      await expect.poll(() => comment(record), { timeout: 30_000 }).toBe(mine);
      await choice.waitFor({ state: "detached" });
      await tabB.locator(`.outbox-choice[data-outbox-record="${record}"]`).waitFor({ state: "detached" });
      // B's answer and 'Keep mine' written once each; A's first attempt met the newer version (412)
      await expect.poll(() => (writesA.get(200) ?? 0) + (writesB.get(200) ?? 0)).toBe(2);
      expect((writesA.get(412) ?? 0) + (writesB.get(412) ?? 0)).toBe(1);
      await context.close();
    },
    120_000,
  );
});
