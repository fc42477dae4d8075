import { defineConfig } from "vitest/config";

// Slow tests, one file at a time (2-core CI); each bounds its own request count and duration. The
// PostgreSQL fault tests (src/postgres) run in the PostgreSQL stage (vitest.postgres.config.ts).
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    exclude: ["src/postgres/**", "**/node_modules/**"],
    testTimeout: 120000,
    hookTimeout: 120000,
    fileParallelism: false,
    pool: "forks",
  },
});
