import { defineConfig } from "vitest/config";

// Browser tests share one built server per file and run files one after another (2-core CI).
export default defineConfig({
  test: { include: ["src/**/*.e2e.test.ts"], testTimeout: 60000, hookTimeout: 90000, fileParallelism: false, pool: "forks" },
});
