import { expect, it } from "vitest";
import { runLoad } from "./load.js";

// 50 annotators for LOAD_SECONDS (5 s here; `pnpm --filter @tessera/security-tests load` runs 60 s).
it("serves 50 concurrent annotators paging and submitting with zero errors, no lost and no duplicated response", async () => {
  const seconds = Number(process.env.LOAD_SECONDS ?? 5);
  const report = await runLoad({ annotators: 50, seconds, records: Number(process.env.LOAD_RECORDS ?? 2000) });
  console.info(`load: ${JSON.stringify(report)}`);
  expect(report.errors.slice(0, 5)).toEqual([]);
  expect(report.submitted).toBeGreaterThan(50);
  expect(report.stored).toBe(report.submitted);
  expect(report.missing).toBe(0);
  expect(report.duplicates).toBe(0);
}, 600_000);
