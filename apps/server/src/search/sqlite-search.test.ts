import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEmbeddedStore } from "../db/database.js";
import { searchPortSuite } from "./search-port.suite.js";
import { SqliteSearch } from "./sqlite-search.js";

searchPortSuite("SQLite (FTS5, sqlite-vec)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-search-"));
  const store = await openEmbeddedStore(dir);
  const close = store.close;
  return {
    store: {
      ...store,
      close: async () => {
        await close();
        rmSync(dir, { recursive: true, force: true });
      },
    },
    port: new SqliteSearch(store.db),
  };
});

// The same suite with the annotation queue's text count going through its exclusion path (used above
// 2,048 matches) on every query instead of the per-match probe.
searchPortSuite("SQLite, queue text count by exclusion", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-search-"));
  const store = await openEmbeddedStore(dir);
  const close = store.close;
  return {
    store: {
      ...store,
      close: async () => {
        await close();
        rmSync(dir, { recursive: true, force: true });
      },
    },
    port: new SqliteSearch(store.db, { fewMatches: -1 }),
  };
});
