// One lint configuration for the monorepo. The import rules keep the dependency direction visible:
// web -> infrastructure -> domain, server -> domain. The domain imports nothing from the others,
// nor React, HTTP clients, servers, databases or the container.
import tseslint from "typescript-eslint";
import i18next from "eslint-plugin-i18next";

const domainForbidden = [
  {
    group: [
      "@tessera/infrastructure",
      "@tessera/infrastructure/*",
      "@tessera/web",
      "@tessera/web/*",
      "@tessera/server",
      "@tessera/server/*",
    ],
    message: "packages/domain must not depend on outer layers.",
  },
  { group: ["react", "react-*", "react/*", "mobx*", "i18next*"], message: "packages/domain is framework-free: no UI libraries." },
  {
    group: [
      "ky",
      "axios",
      "node-fetch",
      "undici",
      "fastify",
      "fastify/*",
      "@fastify/*",
      "http",
      "https",
      "node:*",
      "better-sqlite3",
      "kysely",
      "pg",
    ],
    message: "packages/domain does no I/O: no HTTP, server or database libraries.",
  },
  { group: ["tsyringe", "reflect-metadata"], message: "packages/domain declares injection tokens; it never imports the container." },
];

const forbiddenSyntax = [
  { selector: "CallExpression[callee.name='eval']", message: "eval is forbidden." },
  { selector: "NewExpression[callee.name='Function']", message: "new Function is forbidden." },
];

const serverForbidden = [
  {
    group: ["@tessera/infrastructure", "@tessera/infrastructure/*", "@tessera/web", "@tessera/web/*"],
    message: "The server depends on the domain only.",
  },
];

// Issue 20: apps/server/src/routes/ is HTTP only (parse, authorize, call a use case, shape the contract's
// answer). Database work lives in use cases (`src/<area>/use-cases/<verb-noun>.ts`) and the store adapters.
const routesMessage = "routes/ is HTTP only: move database work to a use case (src/<area>/use-cases/, docs/architecture.md).";
const routesForbidden = [...serverForbidden, { group: ["kysely", "kysely/*", "**/db/*", "**/db"], message: routesMessage }];
const routesForbiddenSyntax = [
  ...forbiddenSyntax,
  {
    selector: "CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|transaction)$/]",
    message: routesMessage,
  },
  { selector: "TaggedTemplateExpression[tag.name='sql']", message: routesMessage },
];
/**
 * Route files allowed to reach the store directly while work elsewhere moves them (the list only
 * shrinks; empty since session 7: every route calls use cases).
 */
/** @type {string[]} */
export const ROUTES_LEFT_TO_OTHERS = [];

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/coverage/**", ".tools/**"] },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-syntax": ["error", ...forbiddenSyntax],
    },
  },
  {
    // Issue 5: every user-facing string in the web app's JSX goes through i18next (en, de, es).
    // jsx-only mode: JSX text and literal strings inside JSX (expressions, ternaries) fail; attribute values
    // fail only where a person reads them (placeholder, alt, aria-label, value, title on DOM elements; any
    // prop of a component except the technical ones below). Words that are not language pass: numbers,
    // punctuation and symbols, keyboard key names, all-caps codes, emoji and HTML entities.
    files: ["apps/web/src/**/*.tsx"],
    ignores: ["apps/web/src/**/*.test.tsx", "apps/web/src/app/test-app.tsx"],
    plugins: { i18next },
    rules: {
      "i18next/no-literal-string": [
        "error",
        {
          mode: "jsx-only",
          "jsx-attributes": {
            exclude: [
              "className",
              "style",
              "type",
              "key",
              "id",
              "width",
              "height",
              "to",
              "href",
              "src",
              "target",
              "rel",
              "name",
              "htmlFor",
              "role",
              "value",
              "variant",
              "size",
              "position",
              "status",
              "tone",
              "kind",
              "mode",
              "layout",
              "testId",
              "as",
              "method",
              "autoComplete",
              "inputMode",
              "pattern",
              "lang",
              "dir",
              "viewBox",
              "fill",
              "stroke",
              "d",
              "sandbox",
              "referrerPolicy",
              "loading",
              "accept",
              "data-.*",
              "aria-(hidden|live|current|haspopup|expanded|controls|describedby|labelledby|orientation|sort|pressed|checked|selected|modal|atomic|busy|invalid|required|disabled|valuemin|valuemax|valuenow|level|owns|activedescendant|relevant|keyshortcuts)",
            ],
          },
          words: {
            exclude: [
              /^[\p{N}\p{P}\p{S}\s]+$/u, // numbers, punctuation and symbols (arrows, ⌫ ↵ ⧉ ▲ ▼, emoji)
              "[A-Z_-]+", // codes such as ID, API
              // keyboard key names and chords: "Ctrl+S", "⌘/ctrl S", "Shift Enter", "Esc"
              /^(?:(?:[⌘⌥⇧⌃]|[Cc]trl|[Cc]md|[Ss]hift|[Aa]lt|[Oo]ption|Enter|Esc|Escape|Tab|Space|Backspace|Delete|Home|End|PageUp|PageDown|Arrow(?:Up|Down|Left|Right)|[A-Z0-9])[/+ ]*)+$/u,
              /^&[a-z]+;$/, // HTML entities
            ],
          },
          // String arguments of these calls and values of these object keys are codes, not texts.
          callees: {
            exclude: [
              "i18n(ext)?",
              "t",
              "require",
              "addEventListener",
              "removeEventListener",
              "postMessage",
              "getElementById",
              "dispatch",
              "commit",
              "includes",
              "indexOf",
              "endsWith",
              "startsWith",
              "querySelector(All)?",
              "closest",
              "matches",
              "act",
              "terms",
              "set[A-Z]\\w*",
              "navigate",
            ],
          },
          "object-properties": {
            exclude: [
              "[A-Z_-]+",
              "kind",
              "type",
              "status",
              "position",
              "scope",
              "entity",
              "property",
              "key",
              "id",
              "name",
              "mode",
              "variant",
              "behavior",
              "block",
            ],
          },
        },
      ],
    },
  },
  {
    files: ["packages/domain/**/*.ts"],
    ignores: ["packages/domain/package-test/**"],
    rules: { "no-restricted-imports": ["error", { patterns: domainForbidden }] },
  },
  {
    files: ["packages/infrastructure/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["@tessera/web", "@tessera/web/*", "@tessera/server", "@tessera/server/*"],
              message: "infrastructure may depend on the domain only.",
            },
            { group: ["react", "react-*", "react/*"], message: "infrastructure has no React." },
          ],
        },
      ],
    },
  },
  {
    files: ["apps/server/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: serverForbidden }] },
  },
  {
    files: ["apps/server/src/routes/**/*.ts"],
    ignores: ["apps/server/src/routes/**/*.test.ts", ...ROUTES_LEFT_TO_OTHERS.map((file) => `apps/server/src/routes/${file}`)],
    rules: {
      "no-restricted-imports": ["error", { patterns: routesForbidden }],
      "no-restricted-syntax": ["error", ...routesForbiddenSyntax],
    },
  },
);
