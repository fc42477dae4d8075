import { resolve } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../../..");
const eslint = new ESLint({ cwd: root });

async function errorsFor(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("dependency direction (lint rule)", () => {
  it.each([
    ["@tessera/infrastructure"],
    ["@tessera/web"],
    ["@tessera/server"],
    ["react"],
    ["react-dom/client"],
    ["ky"],
    ["fastify"],
    ["node:http"],
    ["tsyringe"],
    ["mobx"],
    ["better-sqlite3"],
  ])("fails when packages/domain imports %s", async (module) => {
    expect(await errorsFor("packages/domain/src/entities/probe.ts", `import x from "${module}";\nexport default x;\n`)).not.toHaveLength(0);
  });

  it("lets the domain import its own files", async () => {
    expect(await errorsFor("packages/domain/src/entities/probe.ts", `import { User } from "./user.js";\nexport default User;\n`)).toEqual(
      [],
    );
  });

  it("keeps infrastructure away from the web app and the server, and the server away from infrastructure", async () => {
    expect(await errorsFor("packages/infrastructure/src/probe.ts", `import x from "@tessera/web";\nexport default x;\n`)).not.toHaveLength(
      0,
    );
    expect(await errorsFor("apps/server/src/probe.ts", `import x from "@tessera/infrastructure";\nexport default x;\n`)).not.toHaveLength(
      0,
    );
    expect(await errorsFor("apps/server/src/probe.ts", `import x from "@tessera/domain";\nexport default x;\n`)).toEqual([]);
  });
});
