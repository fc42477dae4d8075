import { defineConfig } from "vitest/config";

// Browser tests share one built server per file and run files one after another (2-core CI).
// expect.poll waits up to 15 s (vitest's default is 1 s): a page that renders slowly on a loaded
// machine is still checked for the same end state, and a wrong state still fails.
export default defineConfig({
  test: {
    include: ["src/**/*.e2e.test.ts"],
    testTimeout: 60000,
    hookTimeout: 90000,
    fileParallelism: false,
    pool: "forks",
    expect: { poll: { timeout: 15_000 } },
  },
});
