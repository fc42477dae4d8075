import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, type Node } from "acorn";
import { ancestor } from "acorn-walk";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./harness.js";

/**
 * The CSP forbids eval (no 'unsafe-eval'), so the built web bundle must not contain code that
 * evaluates strings: `eval` (direct or indirect), `Function(...)` / `new Function(...)`, or
 * setTimeout/setInterval with a string. The check parses each chunk, so words inside strings
 * (syntax highlighters list `eval` as a keyword) do not count.
 */
export function findEvalUses(source: string): string[] {
  const found: string[] = [];
  const ast = parse(source, { ecmaVersion: "latest", sourceType: "module", allowHashBang: true });
  const at = (node: Node) => `${source.slice(Math.max(0, node.start - 40), Math.min(source.length, node.end + 40)).replace(/\s+/g, " ")}`;
  ancestor(ast, {
    Identifier(node, _state, ancestors) {
      const id = node as Node & { name: string };
      if (id.name !== "eval" && id.name !== "Function") return;
      const parent = ancestors[ancestors.length - 2] as (Node & Record<string, unknown>) | undefined;
      // `x.eval`, `{ eval: 1 }` keys and `class { eval() {} }` names are not references.
      if (parent?.type === "MemberExpression" && parent.property === node && !parent.computed) return;
      if (
        (parent?.type === "Property" || parent?.type === "MethodDefinition" || parent?.type === "PropertyDefinition") &&
        parent.key === node &&
        !parent.computed
      )
        return;
      if (id.name === "Function" && parent?.type === "BinaryExpression" && parent.operator === "instanceof") return;
      // `Function` is dangerous when called or aliased; `Object.getPrototypeOf(Function)`, `Function.prototype` are not.
      if (
        id.name === "Function" &&
        !((parent?.type === "CallExpression" || parent?.type === "NewExpression") && parent.callee === node) &&
        !(parent?.type === "VariableDeclarator" && parent.init === node) &&
        !(parent?.type === "AssignmentExpression" && parent.right === node)
      )
        return;
      found.push(`${id.name}: ${at(node)}`);
    },
    CallExpression(node) {
      const call = node as Node & { callee: Node & { name?: string }; arguments: (Node & { value?: unknown })[] };
      const first = call.arguments[0];
      if (
        (call.callee.name === "setTimeout" || call.callee.name === "setInterval") &&
        first &&
        ((first.type === "Literal" && typeof first.value === "string") || first.type === "TemplateLiteral")
      ) {
        found.push(`${call.callee.name} with a string: ${at(node)}`);
      }
    },
  });
  return found;
}

describe("the built web bundle", () => {
  const assets = join(REPO_ROOT, "apps/web/dist/assets");

  it("finds eval and Function in code but not in strings (the check itself can fail)", () => {
    expect(findEvalUses("const a = eval('1');")).toHaveLength(1);
    expect(findEvalUses("const a = (0, eval)('1');")).toHaveLength(1);
    expect(findEvalUses("const f = new Function('return 1');")).toHaveLength(1);
    expect(findEvalUses("const g = Function(`return this`)();")).toHaveLength(1);
    expect(findEvalUses("setTimeout('alert(1)', 1);")).toHaveLength(1);
    expect(findEvalUses("const F = Function; F('x');")).toHaveLength(1);
    expect(
      findEvalUses(
        "const k = ['eval', `eval`]; const o = { eval: 1 }; o.eval; x instanceof Function; Object.getPrototypeOf(Function); setTimeout(() => 1, 1);",
      ),
    ).toEqual([]);
  });

  it("contains no eval, no Function constructor and no string timers", () => {
    expect(existsSync(assets), `${assets} is missing: build the web app first`).toBe(true);
    const chunks = readdirSync(assets).filter((f) => f.endsWith(".js"));
    expect(chunks.length).toBeGreaterThan(0);
    const problems = chunks.flatMap((file) => findEvalUses(readFileSync(join(assets, file), "utf8")).map((p) => `${file}: ${p}`));
    expect(problems).toEqual([]);
  });
});
