import { resolve } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

/** Issue 5: user-facing literal strings in the web app's JSX fail lint; codes, symbols and key names do not. */
const root = resolve(import.meta.dirname, "../../..");
const eslint = new ESLint({ cwd: root });

async function literalErrors(code: string, file = "apps/web/src/features/home/Probe.tsx"): Promise<number> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === "i18next/no-literal-string").length;
}

describe("no literal strings in JSX (i18n lint rule)", () => {
  it.each([
    ["JSX text", `export const Probe = () => <p>Hello there</p>;`],
    ["an aria-label", `export const Probe = () => <button aria-label="Close">x</button>;`],
    ["a placeholder", `export const Probe = () => <input placeholder="Search datasets" />;`],
    ["a title", `export const Probe = () => <span title="Required response">*</span>;`],
    ["a ternary inside JSX", `export const Probe = ({ a }: { a: boolean }) => <p>{a ? "Yes" : "No"}</p>;`],
    ["a component's label prop", `const B = (p: { label: string }) => <i>{p.label}</i>;\nexport const Probe = () => <B label="Submit" />;`],
  ])("fails on %s", async (_name, code) => {
    expect(await literalErrors(code)).toBeGreaterThan(0);
  });

  it("lets codes, class names, symbols, numbers and key names pass", async () => {
    const code = [
      `import { useTranslation } from "react-i18next";`,
      `export const Probe = ({ on }: { on: boolean }) => { const { t } = useTranslation();`,
      `  return <div className={on ? "a b" : "c"} data-testid="probe" role="group" aria-live="polite">`,
      `    <kbd>Ctrl+S</kbd><kbd>⌘/ctrl S</kbd><kbd>↵</kbd><kbd>Esc</kbd><span>{on ? "▲" : "▼"}</span> · 50% <b>API</b>`,
      `    <select value="asc"><option value="desc">{t("sort.desc")}</option></select>{t("home.title")}`,
      `  </div>; };`,
    ].join("\n");
    expect(await literalErrors(code)).toBe(0);
  });

  it("applies to the web app's .tsx files only, not its tests", async () => {
    expect(await literalErrors(`export const Probe = () => <p>Hello there</p>;`, "apps/web/src/features/home/Probe.test.tsx")).toBe(0);
  });
});
