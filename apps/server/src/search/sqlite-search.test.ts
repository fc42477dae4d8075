import { openTempStore } from "../testing/temp-store.js";
import { searchPortSuite } from "./search-port.suite.js";
import { SqliteSearch, sqliteSearchFor } from "./sqlite-search.js";
import { SEARCH_STRUCTURES } from "./search-off.js";

searchPortSuite("SQLite (FTS5, sqlite-vec)", async () => {
  const store = await openTempStore("tessera-search-");
  return { store, port: new SqliteSearch(store.db) };
});

// The same suite with the annotation queue's text count going through its exclusion path (used above
// 2,048 matches) on every query instead of the per-match probe.
searchPortSuite("SQLite, queue text count by exclusion", async () => {
  const store = await openTempStore("tessera-search-");
  return { store, port: new SqliteSearch(store.db, { fewMatches: -1 }) };
});

// The same suite on the port the server builds for a store whose own search structures are all switched off
// (TESSERA_SEARCH_OFF, search-off.ts): the plain paths give the contract's answers.
searchPortSuite("SQLite, TESSERA_SEARCH_OFF with every structure", async () => {
  const store = await openTempStore("tessera-search-", { searchOff: SEARCH_STRUCTURES });
  return { store, port: sqliteSearchFor(store.db) };
});
