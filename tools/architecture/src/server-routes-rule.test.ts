import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
// @ts-expect-error: the lint configuration is plain JavaScript without declarations.
import { ROUTES_LEFT_TO_OTHERS } from "../../../eslint.config.js";

const root = resolve(import.meta.dirname, "../../..");
const routesDir = resolve(root, "apps/server/src/routes");
const eslint = new ESLint({ cwd: root });
const leftToOthers = ROUTES_LEFT_TO_OTHERS as string[];

const RULES = new Set(["no-restricted-imports", "no-restricted-syntax"]);

async function routeErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId !== null && RULES.has(m.ruleId)).map((m) => m.message);
}

describe("server routes are HTTP only (issue 20)", () => {
  it.each([
    ["imports Kysely", `import { sql } from "kysely";\nexport const x = sql;\n`],
    ["imports a Kysely type", `import type { Kysely } from "kysely";\nexport type X = Kysely<never>;\n`],
    ["imports the db layer", `import type { DB } from "../db/schema.js";\nexport type X = DB;\n`],
    ["imports a db helper", `import { isUniqueViolation } from "../db/introspect.js";\nexport const x = isUniqueViolation;\n`],
    ["queries through ctx.db", `export const q = (ctx: any) => ctx.db.selectFrom("users").selectAll().execute();\n`],
    ["writes through ctx.db", `export const q = (ctx: any) => ctx.db.deleteFrom("users").execute();\n`],
    ["opens a transaction", `export const q = (ctx: any) => ctx.db.transaction().execute(async () => 1);\n`],
    ["runs raw SQL", `declare const sql: any;\nexport const q = (db: any) => sql\`select 1\`.execute(db);\n`],
  ])("fails when a route file %s", async (_what, code) => {
    expect(await routeErrors("apps/server/src/routes/probe.ts", code)).not.toHaveLength(0);
  });

  it("lets a route parse, authorize and call a use case", async () => {
    const code = `import { createField } from "../settings/use-cases/create-field.js";
import { datasetFor } from "../auth/policies.js";
export const handler = async (ctx: any, user: any, id: string, body: any) => createField(ctx.db, await datasetFor(ctx.db, user, id, "admin"), body);
`;
    expect(await routeErrors("apps/server/src/routes/probe.ts", code)).toEqual([]);
  });

  it("lets use cases and the server's tests use the store", async () => {
    const code = `import { sql } from "kysely";\nimport type { DB } from "../../db/schema.js";\nexport const q = (db: any) => sql\`select 1\`.execute(db) as unknown as DB;\n`;
    expect(await routeErrors("apps/server/src/settings/use-cases/probe.ts", code)).toEqual([]);
    expect(await routeErrors("apps/server/src/routes/probe.test.ts", code.replace("../../db", "../db"))).toEqual([]);
  });

  it("lists no route file: every route calls use cases (an entry would have to exist and say why)", () => {
    for (const file of leftToOthers) expect(existsSync(resolve(routesDir, file)), file).toBe(true);
    expect(leftToOthers).toEqual([]); // every route calls use cases (session 7); a new entry needs a reason in eslint.config.js
  });

  it("holds for every route file of the server today", async () => {
    const files = readdirSync(routesDir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !leftToOthers.includes(f));
    expect(files.length).toBeGreaterThan(15);
    const results = await eslint.lintFiles(files.map((f) => resolve(routesDir, f)));
    const offending = results.flatMap((r) =>
      r.messages.filter((m) => m.ruleId !== null && RULES.has(m.ruleId)).map((m) => `${r.filePath}:${m.line} ${m.message}`),
    );
    expect(offending).toEqual([]);
  });
});
