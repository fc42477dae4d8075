import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverForFile } from "../../testing/fixtures.js";
import { loadUploadConfig } from "./config.js";
import { runFileImport } from "./file-import-job.js";
import { UploadStore } from "./upload-store.js";

const fx = serverForFile();
let dir = "";
let store: UploadStore;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tessera-uploads-"));
  store = new UploadStore(fx.server.ctx.db, dir);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const config = loadUploadConfig({});
/** The upload store, calling `onSave` after each save (the job saves after every batch). */
class WatchedStore extends UploadStore {
  constructor(
    root: string,
    private readonly onSave: (state: Parameters<UploadStore["save"]>[0]) => Promise<void> | void,
  ) {
    super(fx.server.ctx.db, root);
  }
  override async save(state: Parameters<UploadStore["save"]>[0]): Promise<void> {
    await super.save(state);
    await this.onSave(state);
  }
}
const mapping = {
  fields: [{ source: "body", target: "text" }],
  metadata: [],
  suggestions: [],
  responses: [],
  vectors: [],
  external_id: "key",
};

async function prepared(rows: number) {
  const { datasetId } = await fx.readyDataset();
  const fieldName = (await fx.ok<{ items: Array<{ name: string }> }>("GET", `/datasets/${datasetId}/fields`)).items[0]!.name;
  const lines = Array.from({ length: rows }, (_, i) => JSON.stringify({ key: `k${i + 1}`, body: `Row ${i + 1}` }));
  const owner = await fx.server.ctx.db.selectFrom("users").select("id").where("username", "=", "owner").executeTakeFirstOrThrow();
  const upload = await store.receive(
    Readable.from([`${lines.join("\n")}\n`]),
    { userId: owner.id, filename: "x.jsonl", format: "jsonl" },
    10_000_000,
  );
  await store.update(upload.id, (s) => {
    s.status = "queued";
    s.dataset_id = datasetId;
    s.mapping = { ...mapping, fields: [{ source: "body", target: fieldName }] };
  });
  const count = async () =>
    (await fx.server.ctx.db.selectFrom("records").select("id").where("dataset_id", "=", datasetId).execute()).length;
  return { upload, count };
}

describe("the file import job", () => {
  it("goes on after the last stored batch when it runs again after an interruption", async () => {
    const { upload, count } = await prepared(95);
    const controller = new AbortController();
    let batches = 0;
    const watching = new WatchedStore(dir, (s) => {
      if (s.rows_done > 0 && ++batches === 3) controller.abort();
    });
    await expect(
      runFileImport(
        { db: fx.server.ctx.db, uploads: watching, config, batch: 10 },
        { upload_id: upload.id },
        { signal: controller.signal },
      ),
    ).rejects.toThrow(/interrupted/);
    const interrupted = await store.get(upload.id);
    expect(interrupted).toMatchObject({ status: "importing", rows_done: 30, rows_stored: 30 });
    expect(await count()).toBe(30);
    const result = await runFileImport(
      { db: fx.server.ctx.db, uploads: store, config, batch: 10 },
      { upload_id: upload.id },
      { signal: new AbortController().signal },
    );
    expect(result).toMatchObject({ status: "finished", rows_stored: 95, rows_failed: 0 });
    expect(await count()).toBe(95);
  });

  it("stops between batches when cancelled, keeping what was stored", async () => {
    const { upload, count } = await prepared(50);
    let batches = 0;
    const cancelling = new WatchedStore(dir, async (s) => {
      if (s.rows_done > 0 && ++batches === 2) await store.requestCancel(s.id);
    });
    const result = await runFileImport(
      { db: fx.server.ctx.db, uploads: cancelling, config, batch: 10 },
      { upload_id: upload.id },
      { signal: new AbortController().signal },
    );
    expect(result).toMatchObject({ status: "cancelled" });
    const stored = await count();
    expect(stored).toBeGreaterThanOrEqual(20);
    expect(stored).toBeLessThan(50);
  });
});
