import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";
import type { Plugin } from "vite";

/**
 * The server's CSP has no 'unsafe-eval' (docs/security.md). reflect-metadata finds the global object
 * through `Function("return this;")()` / indirect eval when `globalThis`-like names are missing,
 * which never happens in a browser; replace those fallbacks so the bundle holds no eval at all
 * (tools/security/src/bundle.test.ts checks it).
 */
function noEvalFallbacks(): Plugin {
  return {
    name: "tessera-no-eval-fallbacks",
    enforce: "pre",
    transform(code, id) {
      if (!id.includes("reflect-metadata")) return null;
      const out = code
        .replace('return Function("return this;")();', "return globalThis;")
        .replace('return (void 0, eval)("(function() { return this; })()");', "return globalThis;");
      return out === code ? null : { code: out, map: null };
    },
  };
}

export default defineConfig({
  plugins: [noEvalFallbacks(), react()],
  server: { port: 5173, proxy: { "/api": "http://127.0.0.1:6900" } },
  build: { outDir: "dist", sourcemap: false, target: "es2022" },
  // 20 s per test (vitest's default is 5 s): under load ~20 on the shared 2-core machine FiltersPanel.test.tsx's
  // first test took 5.6 s; a test that hangs still fails
  test: { environment: "jsdom", include: ["src/**/*.test.{ts,tsx}"], setupFiles: ["src/test-setup.ts"], testTimeout: 20_000 },
});
