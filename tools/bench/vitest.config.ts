import { defineConfig } from "vitest/config";

// Unit tests of the benchmark helpers only; the benchmark itself runs in tools/scripts/stages/70-bench-smoke.sh.
export default defineConfig({ test: { include: ["src/**/*.test.ts"] } });
