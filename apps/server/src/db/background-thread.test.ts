import { readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { BACKGROUND_NICE } from "./background-thread.js";
import { openEmbeddedStore, type Store } from "./database.js";
import { textIndexFor } from "../search/text-index.js";

/** Nice value of each thread of this process (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): number[] {
  return readdirSync("/proc/self/task").map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
  });
}

let store: Store | null = null;
let dir = "";
afterEach(async () => { await store?.close(); store = null; rmSync(dir, { recursive: true, force: true }); });

it.runIf(process.platform === "linux")("the text indexer's and the WAL checkpointer's threads run at the lowest CPU priority, the rest of the process does not", async () => {
  const before = threadNices().filter((n) => n === BACKGROUND_NICE).length;
  dir = mkdtempSync(join(tmpdir(), "tessera-nice-"));
  store = await openEmbeddedStore(dir);
  await textIndexFor(store.db)!.catchUp(); // the indexer's thread starts with its first work
  // The threads lower themselves once started (the test's own timeout bounds the wait).
  while (threadNices().filter((n) => n === BACKGROUND_NICE).length < before + 2) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(threadNices().filter((n) => n === BACKGROUND_NICE).length).toBe(before + 2);
  expect(threadNices()).toContain(0);
});
