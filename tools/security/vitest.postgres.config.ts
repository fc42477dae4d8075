import { defineConfig } from "vitest/config";

// The PostgreSQL fault tests (src/postgres): only in the PostgreSQL stage, against its cluster.
export default defineConfig({
  test: { include: ["src/postgres/**/*.test.ts"], testTimeout: 300000, hookTimeout: 120000, fileParallelism: false, pool: "forks" },
});
