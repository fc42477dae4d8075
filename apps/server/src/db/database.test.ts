import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CACHE_MIB, openEmbeddedStore } from "./database.js";

describe("the embedded store's request connection", () => {
  it("has a page cache of CACHE_MIB per database file, or the size asked for", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-cache-"));
    try {
      for (const [cacheMib, expected] of [
        [undefined, CACHE_MIB],
        [3, 3],
      ] as const) {
        const store = await openEmbeddedStore(dir, { cacheMib });
        try {
          expect(store.sqlite!.pragma("main.cache_size", { simple: true })).toBe(-expected * 1024);
          expect(store.sqlite!.pragma("fts.cache_size", { simple: true })).toBe(-expected * 1024);
        } finally {
          await store.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
