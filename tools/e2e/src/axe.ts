import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { screenshot } from "./harness.js";

/** axe-core from node_modules, injected into pages of a context opened with `bypassCSP`. */
const AXE_PATH = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

interface AxeNode {
  target: unknown[];
  failureSummary?: string;
  html: string;
}
interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: AxeNode[];
}

/** Runs axe-core on the page as it is now; returns the serious and critical violations, one readable line per node. */
export async function audit(page: Page, name: string): Promise<string[]> {
  await page.evaluate(() => document.fonts.ready);
  // let transitions (theme, toasts, skeletons) settle before measuring colours
  await page.waitForTimeout(300);
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE_PATH });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, {
      resultTypes: ["violations"],
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] },
    });
    return result.violations;
  });
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (serious.length) await screenshot(page, `a11y-${name}`);
  return serious.flatMap((v) =>
    v.nodes.map(
      (n) =>
        `[${name}] ${v.id} (${v.impact}): ${v.help} @ ${JSON.stringify(n.target)} ${n.html.slice(0, 160)}${n.failureSummary ? ` -- ${n.failureSummary.replace(/\s+/g, " ")}` : ""}`,
    ),
  );
}
