import { defineConfig } from "vitest/config";

// Slow tests, one file at a time (2-core CI); each bounds its own request count and duration.
export default defineConfig({
  test: { include: ["src/**/*.test.ts"], testTimeout: 120000, hookTimeout: 120000, fileParallelism: false, pool: "forks" },
});
