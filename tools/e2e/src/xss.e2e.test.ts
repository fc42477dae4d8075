import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Frame, Page } from "playwright-core";
import { launchBrowser, screenshot, startApp, type RunningApp } from "./harness.js";
import { ownerApi, signedInPage, type Api } from "./seed.js";

/**
 * Stored XSS, end to end in Chromium: a dataset whose every field type, field and question title,
 * label, metadata value, guideline, response text and user name carries a corpus
 * of payloads that call `window.__pwned(tag)`. The owner and an annotator open the home page and the
 * annotation page. Nothing may call `__pwned` in the app's frame and no dialog may open. The only
 * script allowed to run is the advanced custom field's own template, inside its sandboxed frame,
 * which cannot reach the app.
 */

const payloads = (tag: string): string[] => [
  `<script>__pwned('${tag}:script')</script>`,
  `<img src=x onerror="__pwned('${tag}:img')">`,
  `<svg onload="__pwned('${tag}:svg')"></svg>`,
  `"><img src=x onerror=__pwned('${tag}:attr')>`,
  `<iframe src="javascript:__pwned('${tag}:iframe')"></iframe>`,
  `<iframe srcdoc="<script>parent.__pwned('${tag}:srcdoc')</script>"></iframe>`,
  `<details open ontoggle="__pwned('${tag}:details')">d</details>`,
  `<math><mtext><table><mglyph><style><img src=x onerror="__pwned('${tag}:mxss')">`,
  `<a href="javascript:__pwned('${tag}:href')">link</a>`,
  `[md link](javascript:__pwned('${tag}:mdlink'))`,
  `![md img](x" onerror="__pwned('${tag}:mdimg'))`,
  `<object data="javascript:__pwned('${tag}:object')"></object>`,
  `<form><button formaction="javascript:__pwned('${tag}:form')">f</button></form>`,
  `{{constructor.constructor("__pwned('${tag}:tpl')")()}}`,
  `<style>*{background:url("javascript:__pwned('${tag}:css')")}</style>`,
  `<base href="javascript:__pwned('${tag}:base')//">`,
];
const corpus = (tag: string) => payloads(tag).join("\n\n");

let app: RunningApp;
let browser: Browser;
let api: Api;
let datasetId = "";
const annotator = { username: "xss-annotator", password: "xss-password-1" };

async function seed(): Promise<void> {
  api = await ownerApi(app);
  const me = await api<{ id: string }>("GET", "/me");
  await api("PATCH", `/users/${me.id}`, { first_name: payloads("owner-first")[1], last_name: payloads("owner-last")[0] });
  // Workspace names follow Argilla's pattern (lower-case letters, digits, '-', '_'): markup is refused with 422.
  await expect(api("POST", "/workspaces", { name: `ws <img src=x onerror="__pwned('ws')">` })).rejects.toThrow(/: 422 /);
  const ws = await api<{ id: string }>("POST", "/workspaces", { name: "xss-ws" });
  const ds = await api<{ id: string }>("POST", "/datasets", {
    name: `xss <svg onload="__pwned('dsname')">`,
    workspace_id: ws.id,
    guidelines: corpus("guidelines"),
  });
  datasetId = ds.id;
  const field = (name: string, settings: unknown, title = corpus(`title-${name}`).slice(0, 480)) =>
    api("POST", `/datasets/${ds.id}/fields`, { name, title, required: name === "text", settings });
  await field("text", { type: "text", use_markdown: false });
  await field("markdown", { type: "text", use_markdown: true });
  await field("chat", { type: "chat", use_markdown: true });
  await field("image", { type: "image" });
  await field("custom", {
    type: "custom",
    template: "<div class=basic>{{record.fields.custom.html}}</div><pre>{{json record.metadata}}</pre>",
    advanced_mode: false,
  });
  // Advanced mode runs its own script on purpose, in the sandboxed frame; it tries to reach the app and must fail.
  await field("advanced", {
    type: "custom",
    advanced_mode: true,
    template: `<div id=out></div><script>
      __pwned('sandbox-ran');
      try { parent.__pwned('sandbox-escaped-parent'); } catch (e) {}
      try { top.__pwned('sandbox-escaped-top'); } catch (e) {}
      try { parent.document.body.innerHTML = 'owned'; __pwned('sandbox-touched-dom'); } catch (e) {}
      try { localStorage.setItem('x', '1'); __pwned('sandbox-storage'); } catch (e) {}
      try { document.cookie = 'a=b'; if (document.cookie) __pwned('sandbox-cookie'); } catch (e) {}
      document.getElementById('out').textContent = JSON.stringify(record.fields.text).slice(0, 20);
    </script>`,
  });
  const q = (name: string, settings: unknown) =>
    api<{ id: string }>("POST", `/datasets/${ds.id}/questions`, {
      name,
      title: corpus(`qtitle-${name}`).slice(0, 500),
      description: corpus(`qdesc-${name}`).slice(0, 1000),
      required: name === "label",
      settings,
    });
  const label = await q("label", {
    type: "label_selection",
    options: payloads("label")
      .slice(0, 6)
      .map((text, i) => ({ value: `v${i}`, text, description: payloads(`labeldesc${i}`)[1] })),
  });
  await q("multi", {
    type: "multi_label_selection",
    options: payloads("multi")
      .slice(0, 4)
      .map((text, i) => ({ value: `m${i}`, text })),
  });
  await q("ranking", {
    type: "ranking",
    options: payloads("rank")
      .slice(0, 3)
      .map((text, i) => ({ value: `r${i}`, text })),
  });
  await q("comment", { type: "text", use_markdown: true });
  await q("span", {
    type: "span",
    field: "text",
    options: payloads("span")
      .slice(0, 3)
      .map((text, i) => ({ value: `s${i}`, text })),
  });
  await api("POST", `/datasets/${ds.id}/metadata-properties`, {
    name: "meta",
    title: payloads("metatitle")[1],
    settings: { type: "terms", values: null },
    visible_for_annotators: true,
  });
  await api("PUT", `/datasets/${ds.id}/publish`);
  const records = await api<{ items: { id: string }[] }>("POST", `/datasets/${ds.id}/records/bulk`, {
    items: [0, 1].map((i) => ({
      external_id: `xss-${i}`,
      fields: {
        text: corpus(`text${i}`),
        markdown: corpus(`markdown${i}`),
        chat: [
          { role: "user", content: corpus(`chat-user${i}`) },
          { role: "assistant", content: corpus(`chat-assistant${i}`) },
        ],
        image:
          i === 0
            ? `data:image/svg+xml,${encodeURIComponent(`<svg xmlns="http://www.w3.org/2000/svg" onload="__pwned('svgimage')"><script>__pwned('svgimage-script')</script></svg>`)}`
            : `https://example.invalid/x.png?"><img src=x onerror=__pwned('imageurl')>`,
        custom: { html: corpus(`custom${i}`) },
        advanced: { n: i },
      },
      metadata: { meta: payloads(`metavalue${i}`)[1], extra: payloads(`extra${i}`)[0] },
      suggestions: [{ question_id: label.id, value: "v1", agent: "model-x", score: 0.5 }],
    })),
  });
  const user = await api<{ id: string; api_key: string }>("POST", "/users", {
    ...annotator,
    first_name: payloads("annotator-first")[1],
    last_name: payloads("annotator-last")[2],
    role: "annotator",
  });
  await api("POST", `/workspaces/${ws.id}/users`, { user_id: user.id });
  // A draft answer with a markdown payload, shown in the text question and its preview.
  await api(
    "POST",
    `/records/${records.items[0]!.id}/responses`,
    { values: { comment: { value: corpus("response") } }, status: "draft" },
    { "X-Argilla-Api-Key": user.api_key },
  );
}

interface Hit {
  tag: string;
  main: boolean;
  url: string;
}

async function watch(context: BrowserContext): Promise<{ hits: Hit[]; dialogs: string[]; violations: string[]; pages: Page[] }> {
  const state = { hits: [] as Hit[], dialogs: [] as string[], violations: [] as string[], pages: [] as Page[] };
  await context.exposeBinding("__pwned", (source: { frame: Frame; page: Page }, tag: unknown) => {
    state.hits.push({ tag: String(tag), main: source.frame === source.page.mainFrame(), url: source.frame.url() });
  });
  // Where a blocked attempt came from: the element and the handler's first characters.
  await context.addInitScript(() => {
    document.addEventListener(
      "securitypolicyviolation",
      (e) => {
        const target = e.target instanceof Element ? e.target : null;
        console.warn(
          `Content Security Policy violation: ${e.sourceFile}:${e.lineNumber}:${e.columnNumber} ${location.href} ${e.violatedDirective} ${e.blockedURI} ${e.originalPolicy.slice(0, 40)} ${e.sample} in ${target ? `${target.isConnected ? "connected" : "detached"} ${target.outerHTML.slice(0, 120)}` : String(e.target)}`,
        );
      },
      true,
    );
  });
  context.on("page", (page) => {
    state.pages.push(page);
    page.on("dialog", (d) => {
      state.dialogs.push(d.message());
      void d.dismiss();
    });
    page.on("console", (m) => {
      if (/Content Security Policy/i.test(m.text()))
        state.violations.push(`${m.location().url}:${m.location().lineNumber} (page ${page.url()}) ${m.text().slice(0, 400)}`);
    });
  });
  return state;
}

async function visitEverything(page: Page, who: string): Promise<void> {
  await page.goto(`${app.url}/`);
  await page.waitForLoadState("networkidle");
  await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode`);
  await page.locator(".record-card, [data-testid=record], main").first().waitFor();
  await page.waitForLoadState("networkidle");
  // Open every disclosure (record info with metadata, guidelines, previews) to render what hides behind it.
  for (const button of await page.locator("button[aria-expanded=false]").all())
    await button.click({ timeout: 2000 }).catch(() => undefined);
  await page.waitForTimeout(500);
  await screenshot(page, `xss-annotation-${who}`);
  // The next record (the image URL payload) and the bulk view.
  await page.keyboard.press("ArrowRight").catch(() => undefined);
  await page.waitForTimeout(500);
  await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode?_page=1&_view=bulk`);
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(500);
  // An error page with a payload in the URL.
  await page.goto(`${app.url}/dataset/${encodeURIComponent(`<img src=x onerror=__pwned('url')>`)}/annotation-mode`);
  await page.waitForTimeout(800);
  await page.goto(`${app.url}/user-settings`);
  await page.waitForLoadState("networkidle");
}

beforeAll(async () => {
  [app, browser] = await Promise.all([startApp(), launchBrowser()]);
  await seed();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe("stored XSS payloads in every rendered place", () => {
  it.each([
    ["owner", () => ({ username: "owner", password: app.ownerPassword })],
    ["annotator", () => annotator],
  ])(
    "never execute for the %s (no __pwned call in the app, no dialog), while custom templates run sandboxed",
    async (who, credentials) => {
      const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
      const state = await watch(context);
      const { username, password } = credentials();
      const page = await signedInPage(context, app, username, password);
      await visitEverything(page, who);
      // The annotation page rendered the record (its text appears escaped, as text).
      await page.goto(`${app.url}/dataset/${datasetId}/annotation-mode`);
      await page
        .getByText(/__pwned\('text\d:script'\)/)
        .first()
        .waitFor({ timeout: 15_000 });
      for (const button of await page.locator("button[aria-expanded=false]").all())
        await button.click({ timeout: 2000 }).catch(() => undefined);
      // Defence in depth: the sanitizer, not only the CSP, must keep event handlers out of the app's DOM.
      const handlers = await page.evaluate(() =>
        Array.from(document.querySelectorAll("*"))
          .filter((el) => Array.from(el.attributes).some((a) => /^on/i.test(a.name) || /^\s*javascript:/i.test(a.value)))
          .map((el) => `${el.closest("[class]")?.className ?? ""} > ${el.outerHTML.slice(0, 160)}`),
      );
      expect(handlers).toEqual([]);
      // The advanced custom field's template ran inside its sandbox (the feature works under the CSP).
      await expect.poll(() => state.hits.some((h) => h.tag === "sandbox-ran" && !h.main), { timeout: 10_000 }).toBe(true);
      const frame = page.frames().find((f) => f.url().endsWith("/frames/custom-field.html") && f !== page.mainFrame());
      expect(frame).toBeDefined();
      const executed = state.hits.filter((h) => h.tag !== "sandbox-ran");
      expect(executed).toEqual([]);
      expect(state.dialogs).toEqual([]);
      // No javascript: URL survived in the app's DOM.
      expect(
        await page.locator("a[href^='javascript:' i], iframe[src^='javascript:' i], object[data^='javascript:' i], base").count(),
      ).toBe(0);
      // DOMPurify parses with DOMParser; Chromium reports the (inert) handlers it meets there as CSP violations. Logged, not fatal.
      if (state.violations.length > 0)
        console.info(
          `${who}: ${state.violations.length} CSP report(s), e.g. ${state.violations.find((v) => v.includes("violation:"))?.slice(0, 300) ?? state.violations[0]?.slice(0, 300)}`,
        );
      await context.close();
    },
    120_000,
  );
});
