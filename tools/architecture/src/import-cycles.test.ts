import { resolve } from "node:path";
import madge from "madge";
import { describe, expect, it } from "vitest";

// No module imports itself through others (issue 20): a cycle makes the order of initialisation
// matter and hides which of two files is the lower layer. Type-only imports count too.
const root = resolve(import.meta.dirname, "../../..");
const roots = ["packages/domain/src", "packages/infrastructure/src", "apps/server/src", "apps/web/src", "tools"];

describe("import graph", () => {
  it("has no circular imports in any package, app or tool", async () => {
    const graph = await madge(
      roots.map((dir) => resolve(root, dir)),
      {
        baseDir: root,
        fileExtensions: ["ts", "tsx", "mjs"],
        excludeRegExp: [/node_modules/, /\/dist\//, /\.d\.ts$/],
        tsConfig: resolve(root, "tsconfig.base.json"),
      },
    );
    expect(graph.circular()).toEqual([]);
  }, 120_000);
});
