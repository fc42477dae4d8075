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
  return { store: { ...store, close: async () => { await close(); rmSync(dir, { recursive: true, force: true }); } }, port: new SqliteSearch(store.db) };
});
