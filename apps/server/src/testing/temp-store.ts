import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEmbeddedStore, type Store } from "../db/database.js";

/** Tests: an embedded store in a new temporary directory, removed with it on close. */
export async function openTempStore(prefix: string, options: Parameters<typeof openEmbeddedStore>[1] = {}): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = await openEmbeddedStore(dir, options);
  const close = store.close;
  return {
    ...store,
    close: async () => {
      await close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
