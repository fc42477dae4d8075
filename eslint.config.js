// One lint configuration for the monorepo. The import rules keep the dependency direction visible:
// web -> infrastructure -> domain, server -> domain. The domain imports nothing from the others,
// nor React, HTTP clients, servers, databases or the container.
import tseslint from "typescript-eslint";

const domainForbidden = [
  { group: ["@tessera/infrastructure", "@tessera/infrastructure/*", "@tessera/web", "@tessera/web/*", "@tessera/server", "@tessera/server/*"], message: "packages/domain must not depend on outer layers." },
  { group: ["react", "react-*", "react/*", "mobx*", "i18next*"], message: "packages/domain is framework-free: no UI libraries." },
  { group: ["ky", "axios", "node-fetch", "undici", "fastify", "fastify/*", "@fastify/*", "http", "https", "node:*", "better-sqlite3", "kysely", "pg"], message: "packages/domain does no I/O: no HTTP, server or database libraries." },
  { group: ["tsyringe", "reflect-metadata"], message: "packages/domain declares injection tokens; it never imports the container." },
];

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/coverage/**", ".tools/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-syntax": ["error", { selector: "CallExpression[callee.name='eval']", message: "eval is forbidden." }, { selector: "NewExpression[callee.name='Function']", message: "new Function is forbidden." }],
    },
  },
  {
    files: ["packages/domain/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: domainForbidden }] },
  },
  {
    files: ["packages/infrastructure/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [
      { group: ["@tessera/web", "@tessera/web/*", "@tessera/server", "@tessera/server/*"], message: "infrastructure may depend on the domain only." },
      { group: ["react", "react-*", "react/*"], message: "infrastructure has no React." },
    ] }] },
  },
  {
    files: ["apps/server/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [
      { group: ["@tessera/infrastructure", "@tessera/infrastructure/*", "@tessera/web", "@tessera/web/*"], message: "The server depends on the domain only." },
    ] }] },
  },
);
