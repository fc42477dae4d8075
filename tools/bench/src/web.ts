import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromiumPath, launchChromium } from "@tessera/test-harness/browser";
import type { Browser, Page } from "playwright-core";
import { REPO_ROOT } from "./server.ts";

export interface BundleSizes {
  initialJsGzip: number;
  initialCssGzip: number;
  initialJsRaw: number;
  initialFiles: string[];
  annotationChunkGzip: number;
  allJsGzip: number;
}

const gz = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;

/** Gzip sizes of what index.html loads before any lazy route (entry script, modulepreloads, stylesheets). */
export function bundleSizes(dist = join(REPO_ROOT, "apps/web/dist")): BundleSizes | { skipped: string } {
  const index = join(dist, "index.html");
  if (!existsSync(index)) return { skipped: `${index} is missing: build the web app first` };
  const html = readFileSync(index, "utf8");
  const refs = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="\/?([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  const js = refs.filter((r) => r.endsWith(".js"));
  const css = refs.filter((r) => r.endsWith(".css"));
  const assets = readdirSync(join(dist, "assets"));
  return {
    initialJsGzip: js.reduce((s, f) => s + gz(join(dist, f)), 0),
    initialJsRaw: js.reduce((s, f) => s + readFileSync(join(dist, f)).length, 0),
    initialCssGzip: css.reduce((s, f) => s + gz(join(dist, f)), 0),
    initialFiles: refs,
    annotationChunkGzip: assets
      .filter((f) => f.startsWith("AnnotationPage") && f.endsWith(".js"))
      .reduce((s, f) => s + gz(join(dist, "assets", f)), 0),
    allJsGzip: assets.filter((f) => f.endsWith(".js")).reduce((s, f) => s + gz(join(dist, "assets", f)), 0),
  };
}

export interface BrowserResult {
  firstRecordMs: number[];
  nextRecordMs: { count: number; p50: number; p95: number; p99: number; max: number };
  nextRecordPaintP50: number;
  /** Heap after GC after the warm-up records (the baseline) and at the end; growth = end vs baseline. */
  heapBaselineBytes: number;
  heapFinalBytes: number;
  heapGrowthPercent: number;
  annotated: number;
  warmupRecords: number;
  /** The same from the 20th record on (before V8's optimising compilers have settled). */
  heapEarlyBytes: number;
  heapGrowthFromEarlyPercent: number;
  /**
   * The same from the 100th record on (the first session's baseline: Maglev and Turbofan still compile
   * the page's hot functions for a few hundred records). Absent in older reports.
   */
  heapTieringBytes?: number;
  heapGrowthFromTieringPercent?: number;
  /** Heap snapshots at the baseline and at the end, split by what grows (see HeapComposition). */
  heapComposition?: { baseline: HeapComposition; final: HeapComposition; jsGrowthPercent: number };
  /**
   * A form change (a label clicked) → the form says it is on this device's disk (its IndexedDB transaction
   * completed: what a crash from then on cannot lose, docs/offline-answers.md). Absent in older reports.
   */
  keptMs?: { count: number; p50: number; p95: number; max: number };
  stoppedEarly?: string;
}
export type BrowserOutcome = BrowserResult | { skipped: string };

/**
 * A heap snapshot's self sizes by V8 node type: `code` (bytecode, baseline and optimised machine code and
 * their metadata: grows while V8 tiers up the page's hot functions), `native` (Blink's C++ objects: DOM,
 * performance entries, DevTools' network buffer of the CDP session) and `js`, everything else (objects,
 * arrays, strings, closures, shapes: the app's data).
 */
export interface HeapComposition {
  codeBytes: number;
  jsBytes: number;
  nativeBytes: number;
  /**
   * Functions (V8 SharedFunctionInfos) and RegExp objects alive. Growing with the records: new source compiled
   * per record (eval, `new Function`, RegExps built from per-record text and kept). Flat while `codeBytes`
   * grows: V8 tiering up the same functions (optimised code and its deoptimisation data). Absent in older reports.
   */
  functions?: number;
  regexps?: number;
}

/** The parts of a V8 heap snapshot (`.heapsnapshot` JSON) that HeapComposition reads. */
export interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** A heap snapshot's self sizes and counts, as HeapComposition. */
export function summarizeHeapSnapshot(snapshot: HeapSnapshot): HeapComposition {
  const fields = snapshot.snapshot.meta.node_fields;
  const typeNames = snapshot.snapshot.meta.node_types[0];
  const typeAt = fields.indexOf("type"),
    nameAt = fields.indexOf("name"),
    sizeAt = fields.indexOf("self_size");
  const sum: Required<HeapComposition> = { codeBytes: 0, jsBytes: 0, nativeBytes: 0, functions: 0, regexps: 0 };
  for (let i = 0; i < snapshot.nodes.length; i += fields.length) {
    const type = typeNames[snapshot.nodes[i + typeAt]!];
    sum[type === "code" ? "codeBytes" : type === "native" ? "nativeBytes" : "jsBytes"] += snapshot.nodes[i + sizeAt]!;
    if (type === "regexp") sum.regexps++;
    else if (type === "code" && snapshot.strings[snapshot.nodes[i + nameAt]!]!.startsWith("system / SharedFunctionInfo")) sum.functions++;
  }
  return sum;
}

declare global {
  interface Window {
    __benchFirstRecord?: number;
    __benchSubmit?: () => Promise<{ dom: number; paint: number }>;
    __benchKeep?: () => Promise<number>;
  }
}

/** Runs in the page: clicks the first label the current record does not have and times until the form says it is kept on disk. */
async function changeAndWaitKept(): Promise<number> {
  const panel = document.querySelector(".form-panel");
  if (!panel) throw new Error("no form on the page");
  const option = document.querySelector<HTMLElement>('.form-panel [role="radio"][aria-checked="false"]');
  if (!option) throw new Error("no label to change to");
  const kept = () => panel.getAttribute("data-form-kept") === "kept";
  const t0 = performance.now();
  option.click();
  if (panel.getAttribute("data-form-kept") === "failed") throw new Error("this browser cannot keep forms");
  await new Promise<void>((resolve, reject) => {
    // the click starts a write ('keeping'); the attribute turns 'kept' when its transaction completed
    const seenKeeping = () => panel.getAttribute("data-form-kept") === "keeping";
    let started = seenKeeping();
    const observer = new MutationObserver(() => {
      if (seenKeeping()) started = true;
      else if (started && kept()) {
        observer.disconnect();
        clearTimeout(timer);
        resolve();
      }
    });
    observer.observe(panel, { attributes: true, attributeFilter: ["data-form-kept"] });
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error("the form was not kept within 10 s"));
    }, 10_000);
  });
  return performance.now() - t0;
}

/** Runs in the page: answers the current record if needed, clicks Submit and times until another record is in the DOM. */
async function submitAndWait(): Promise<{ dom: number; paint: number }> {
  const current = () => document.querySelector("article[data-record-id]")?.getAttribute("data-record-id") ?? null;
  const before = current();
  if (before === null) throw new Error("no record on the page");
  if (!document.querySelector('[role="radio"][aria-checked="true"]'))
    (document.querySelector('[role="radio"]') as HTMLElement | null)?.click();
  const submitButton = () =>
    Array.from(document.querySelectorAll<HTMLButtonElement>(".form-panel button")).find((b) => /Submit/.test(b.textContent ?? ""));
  const enabledBy = performance.now() + 5000;
  while (!submitButton() || submitButton()!.disabled) {
    if (performance.now() > enabledBy) throw new Error("the Submit button stayed disabled");
    await new Promise((r) => requestAnimationFrame(r));
  }
  const t0 = performance.now();
  submitButton()!.click();
  await new Promise<void>((resolve, reject) => {
    const done = () => {
      const now = current();
      return now !== null && now !== before;
    };
    if (done()) {
      resolve();
      return;
    }
    const observer = new MutationObserver(() => {
      if (done()) {
        observer.disconnect();
        clearTimeout(timer);
        resolve();
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-record-id"] });
    const timer = setTimeout(() => {
      observer.disconnect();
      reject(new Error("no next record within 10 s"));
    }, 10_000);
  });
  const dom = performance.now() - t0;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return { dom, paint: performance.now() - t0 };
}

function recordFirstRecord(): void {
  const observer = new MutationObserver(() => {
    if (document.querySelector("article[data-record-id]")) {
      window.__benchFirstRecord = performance.now();
      observer.disconnect();
    }
  });
  document.addEventListener("DOMContentLoaded", () => observer.observe(document.body, { subtree: true, childList: true }));
}

async function heapUsed(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("HeapProfiler.collectGarbage");
  await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = await cdp.send("Runtime.getHeapUsage");
  await cdp.detach();
  return usedSize;
}

/** A heap snapshot through CDP, summed as HeapComposition. */
async function heapComposition(page: Page): Promise<HeapComposition> {
  const cdp = await page.context().newCDPSession(page);
  const chunks: string[] = [];
  cdp.on("HeapProfiler.addHeapSnapshotChunk", (e: { chunk: string }) => {
    chunks.push(e.chunk);
  });
  await cdp.send("HeapProfiler.collectGarbage");
  await cdp.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
  await cdp.detach();
  return summarizeHeapSnapshot(JSON.parse(chunks.join("")) as HeapSnapshot);
}

const growth = (from: number, to: number) => Math.round(((to - from) / from) * 1000) / 10;

/**
 * `records`: Submits measured after `warmup` ones (default 100). The heap's baseline is taken after the
 * warm-up: V8 compiles and optimises the page's hot functions during the first records (one-off code, not
 * app data: docs/performance.md), and the question is whether annotating then keeps the heap flat.
 */
export interface BrowserOptions {
  url: string;
  datasetId: string;
  username: string;
  password: string;
  records: number;
  warmup?: number;
  loads: number;
  failureScreenshot?: string;
}

/** Real headless Chromium on the annotation page: first record after navigation, next record after Submit, JS heap growth. */
export async function measureBrowser(options: BrowserOptions): Promise<BrowserOutcome> {
  const executablePath = chromiumPath();
  if (!existsSync(executablePath)) return { skipped: `no Chromium at ${executablePath}` };
  let browser: Browser | undefined;
  const pageErrors: string[] = [];
  try {
    browser = await launchChromium();
    const context = await browser.newContext({ locale: "en-US", viewport: { width: 1400, height: 1000 } });
    await context.addInitScript(recordFirstRecord);
    // Installed once per document and called by the same one-line expression each time: a function
    // passed to page.evaluate is compiled in the page on every call, and 600 of them are V8 code
    // that the heap figure would count against the app.
    await context.addInitScript({ content: `window.__benchSubmit = ${submitAndWait.toString()};` });
    await context.addInitScript({ content: `window.__benchKeep = ${changeAndWaitKept.toString()};` });
    const page = await context.newPage();
    page.on("pageerror", (error) => {
      pageErrors.push(error.message.split("\n")[0] ?? "");
    });
    page.on("console", (message) => {
      if (message.type() === "error") pageErrors.push(message.text().slice(0, 200));
    });
    await page.goto(`${options.url}/sign-in`);
    await page.getByLabel("Username").fill(options.username);
    await page.getByLabel("Password").fill(options.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${options.url}/`, { timeout: 30_000 });

    const annotationUrl = `${options.url}/dataset/${options.datasetId}/annotation-mode`;
    const firstRecordMs: number[] = [];
    for (let i = 0; i < options.loads; i++) {
      await page.goto(annotationUrl);
      try {
        await page.locator("article[data-record-id]").first().waitFor({ timeout: 30_000 });
      } catch {
        return { skipped: `not measured: the annotation page showed no record within 30 s (${page.url()})` };
      }
      const at = await page.evaluate(() => window.__benchFirstRecord ?? null);
      if (at === null) return { skipped: "not measured: could not time the first record" };
      firstRecordMs.push(Math.round(at));
    }

    // a form change → kept on disk, on the first record (its label changed back and forth)
    const kept: number[] = [];
    for (let i = 0; i < Math.min(50, options.records); i++) {
      try {
        kept.push((await page.evaluate("window.__benchKeep()")) as number);
      } catch (error) {
        return {
          skipped: `not measured: keeping the form failed (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`,
        };
      }
    }
    const keptSorted = [...kept].sort((a, b) => a - b);
    const kq = (p: number) =>
      Math.round(keptSorted[Math.min(keptSorted.length - 1, Math.max(0, Math.ceil(p * keptSorted.length) - 1))]! * 10) / 10;

    const warmup = options.warmup ?? Math.min(100, Math.max(1, Math.floor(options.records / 5)));
    const early = Math.min(20, warmup);
    const tiering = Math.min(100, warmup);
    const total = warmup + options.records;
    const dom: number[] = [];
    const paint: number[] = [];
    let heapEarly = 0,
      heapTiering = 0,
      heapBaseline = 0;
    let compositionBaseline: HeapComposition | undefined;
    let stoppedEarly: string | undefined;
    for (let i = 0; i < total; i++) {
      if (i === early) heapEarly = await heapUsed(page);
      if (i === tiering) heapTiering = await heapUsed(page);
      if (i === warmup) {
        heapBaseline = await heapUsed(page);
        compositionBaseline = await heapComposition(page);
      }
      let t: { dom: number; paint: number };
      try {
        t = (await page.evaluate("window.__benchSubmit()")) as { dom: number; paint: number };
      } catch (error) {
        const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
        if (i <= warmup) return { skipped: `not measured: submitting on the annotation page failed after ${i} records (${reason})` };
        stoppedEarly = `stopped after ${i} records: ${reason}`;
        break;
      }
      dom.push(t.dom);
      paint.push(t.paint);
    }
    const heapFinal = await heapUsed(page);
    const compositionFinal = compositionBaseline ? await heapComposition(page) : undefined;
    const sorted = [...dom].sort((a, b) => a - b);
    const q = (p: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]! * 10) / 10;
    const paintSorted = [...paint].sort((a, b) => a - b);
    return {
      firstRecordMs,
      nextRecordMs: { count: dom.length, p50: q(0.5), p95: q(0.95), p99: q(0.99), max: q(1) },
      nextRecordPaintP50: Math.round((paintSorted[Math.floor(paintSorted.length / 2)] ?? 0) * 10) / 10,
      heapBaselineBytes: heapBaseline,
      heapFinalBytes: heapFinal,
      heapGrowthPercent: growth(heapBaseline, heapFinal),
      warmupRecords: warmup,
      heapEarlyBytes: heapEarly,
      heapGrowthFromEarlyPercent: growth(heapEarly, heapFinal),
      heapTieringBytes: heapTiering,
      heapGrowthFromTieringPercent: growth(heapTiering, heapFinal),
      ...(compositionBaseline && compositionFinal
        ? {
            heapComposition: {
              baseline: compositionBaseline,
              final: compositionFinal,
              jsGrowthPercent: growth(compositionBaseline.jsBytes, compositionFinal.jsBytes),
            },
          }
        : {}),
      annotated: dom.length,
      ...(kept.length ? { keptMs: { count: kept.length, p50: kq(0.5), p95: kq(0.95), max: kq(1) } } : {}),
      ...(stoppedEarly ? { stoppedEarly } : {}),
    };
  } catch (error) {
    const page = browser?.contexts()[0]?.pages()[0];
    if (page && options.failureScreenshot) await page.screenshot({ path: options.failureScreenshot }).catch(() => undefined);
    const errors = pageErrors.length ? `; page errors: ${pageErrors.slice(0, 2).join(" | ")}` : "";
    return {
      skipped: `not measured: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}${page ? ` (at ${page.url()})` : ""}${errors}`,
    };
  } finally {
    await browser?.close();
  }
}
