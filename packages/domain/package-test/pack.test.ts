import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// Another team's view of the package: `pnpm pack` (which builds dist/ first), install the tarball
// into an empty folder, and use it from plain Node, with the README's example.
const packageDir = resolve(import.meta.dirname, "..");
const require = createRequire(import.meta.url);
const work = mkdtempSync(join(tmpdir(), "tessera-domain-pack-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" },
  });
}

describe("the packed @tessera/domain", () => {
  it("installs into an empty folder and runs from plain Node with its types, without side effects on import", () => {
    run("pnpm", ["pack", "--pack-destination", work], packageDir);
    const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
    expect(tarball).toBeDefined();
    const listing = run("tar", ["-tzf", join(work, tarball!)], work).split("\n");
    expect(listing).toContain("package/dist/index.js");
    expect(listing).toContain("package/dist/index.d.ts");
    expect(listing).toContain("package/README.md");
    expect(listing.some((path) => path.startsWith("package/src/"))).toBe(false);
    expect(listing.some((path) => path.endsWith(".test.js"))).toBe(false);

    const app = join(work, "app");
    run("mkdir", ["-p", app], work);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    run("npm", ["install", "--no-save", "--offline", join(work, tarball!)], app);
    writeFileSync(
      join(app, "use.mjs"),
      [
        "const before = new Set(Object.getOwnPropertyNames(globalThis));",
        'const domain = await import("@tessera/domain");',
        "const added = Object.getOwnPropertyNames(globalThis).filter((name) => !before.has(name));",
        'const errors = domain.validateQuestionOptions("label_selection", [{ value: "yes", text: "Yes" }]);',
        'console.log(JSON.stringify({ added, errors, hsl: domain.isHslColor("hsl(210, 50%, 40%)"), types: domain.QUESTION_TYPES }));',
      ].join("\n"),
    );
    const out = JSON.parse(run(process.execPath, ["use.mjs"], app)) as {
      added: string[];
      errors: { key: string }[];
      hsl: boolean;
      types: string[];
    };
    expect(out.added).toEqual([]);
    expect(out.errors.map((e) => e.key)).toEqual(["datasetCreation.questions.labelSelection.atLeastTwoOptions"]);
    expect(out.hsl).toBe(true);
    expect(out.types).toContain("span");

    const pkg = JSON.parse(
      run(process.execPath, ["-p", "JSON.stringify(require('./node_modules/@tessera/domain/package.json'))"], app),
    ) as { exports: { ".": { types: string } } };
    expect(pkg.exports["."].types).toBe("./dist/index.d.ts");

    // A TypeScript consumer type-checks against the shipped declarations (a wrong call must fail).
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: ["use.ts"],
      }),
    );
    writeFileSync(
      join(app, "use.ts"),
      'import { validateQuestionOptions, type QuestionType } from "@tessera/domain";\nconst type: QuestionType = "rating";\nexport const errors: { key: string }[] = validateQuestionOptions(type, []);\n',
    );
    const tsc = join(require.resolve("typescript/package.json"), "..", "bin", "tsc");
    run(process.execPath, [tsc, "-p", "tsconfig.json"], app);
    writeFileSync(
      join(app, "use.ts"),
      'import { validateQuestionOptions } from "@tessera/domain";\nexport const errors: number = validateQuestionOptions("rating", []);\n',
    );
    let typeErrors = "";
    try {
      run(process.execPath, [tsc, "-p", "tsconfig.json"], app);
    } catch (error) {
      typeErrors = String((error as { stdout?: string }).stdout);
    }
    expect(typeErrors).toMatch(/error TS2322/);
  }, 120_000);
});
