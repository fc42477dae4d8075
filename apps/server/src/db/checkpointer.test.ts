import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openEmbeddedStore, type Store } from "./database.js";

let store: Store | null = null;
let dir = "";
afterEach(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("the WAL is checkpointed by the background thread, not by the write connection, and the data survives close and reopen", async () => {
  dir = mkdtempSync(join(tmpdir(), "tessera-checkpoint-"));
  store = await openEmbeddedStore(dir);
  const sqlite = store.sqlite!;
  expect(sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(20_000);
  sqlite.exec("CREATE TABLE filler (x BLOB)");
  const insert = sqlite.prepare("INSERT INTO filler (x) VALUES (randomblob(4000))");
  for (let i = 0; i < 50; i++)
    sqlite.transaction(() => {
      for (let j = 0; j < 20; j++) insert.run();
    })();
  // Polls the thread's report (no timing asserted: the test's own timeout bounds the wait).
  while (store.checkpointer!.checkpointed === 0) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(store.checkpointer!.checkpointed).toBeGreaterThan(0);
  await store.close();
  store = await openEmbeddedStore(dir);
  expect(store.sqlite!.prepare("SELECT count(*) FROM filler").pluck().get()).toBe(1000);
});
