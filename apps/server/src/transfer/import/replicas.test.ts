import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../testing/test-server.js";
import { Fixtures } from "../../testing/fixtures.js";
import { testDatabaseUrl } from "../../testing/pg-test-database.js";
import type { PgBossJobQueue } from "../../jobs/pgboss-queue.js";

/**
 * Uploads with two replicas on one PostgreSQL database (the PostgreSQL stage sets
 * TESSERA_TEST_DATABASE_URL): a file received by one replica is imported whichever replica gets the
 * import call and whichever runs the job, its progress and failed rows read through either, and no
 * replica keeps its bytes once the import is over (transfer/import/upload-store.ts).
 */
describe.skipIf(!testDatabaseUrl())("uploads on two replicas of one PostgreSQL database", () => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ TESSERA_JOBS_RETRY_DELAY_MS: "1000" });
    b = await startTestServer({ TESSERA_JOBS_RETRY_DELAY_MS: "1000", DATABASE_URL: a.ctx.store.databaseUrl! });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
  });

  const call = (server: TestServer, path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { ...a.ownerHeaders, "content-type": "application/json", ...init.headers } });
  const noLocalCopy = (id: string) =>
    !existsSync(join(a.ctx.config.dataDir, "uploads", id)) && !existsSync(join(b.ctx.config.dataDir, "uploads", id));

  it("imports a file received by one replica through the other, whichever runs the job", async () => {
    const fx = new Fixtures(a);
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    await fx.field(ds.id, { name: "text", title: "Text" });
    await fx.question(ds.id, { name: "label", title: "Label" });
    await fx.metadataProperty(ds.id, { name: "n", title: "N", settings: { type: "integer" } });
    await fx.publish(ds.id);
    // Only replica B runs jobs: A's workers are stopped. A receives the files.
    await (a.ctx.jobs as PgBossJobQueue).pauseWorkers();
    const cases = [
      { name: "import called on B", importOn: b, rows: 1200 },
      { name: "import called on A (the receiving replica), run by B", importOn: a, rows: 30 },
    ];
    let total = 0;
    for (const c of cases) {
      const lines = Array.from({ length: c.rows }, (_, i) => `k-${total + i},Row ${total + i},${i === 7 ? "seven" : i}`);
      const sent = await call(a, `/uploads?filename=rows.csv`, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
        body: `key,body,n\n${lines.join("\n")}\n`,
      });
      expect(sent.status).toBe(201);
      const { id } = (await sent.json()) as { id: string };
      expect(noLocalCopy(id)).toBe(true); // the bytes are in the database, not on A's disk
      const queued = await call(c.importOn, `/uploads/${id}/import`, {
        method: "POST",
        body: JSON.stringify({
          dataset_id: ds.id,
          mapping: { fields: [{ source: "body", target: "text" }], metadata: [{ source: "n", target: "n" }], external_id: "key" },
        }),
      });
      expect(queued.status, c.name).toBe(202);
      let state = { status: "queued", rows_stored: 0, rows_failed: 0, error: null as string | null };
      const deadline = Date.now() + 60_000;
      while ((state.status === "queued" || state.status === "importing") && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        state = (await (await call(a, `/uploads/${id}`)).json()) as typeof state;
      }
      // a batch of 500 with row 8 failed: stored whole or not at all
      const failedBatch = Math.min(500, c.rows);
      expect(state, c.name).toMatchObject({ status: "finished", rows_stored: c.rows - failedBatch, rows_failed: failedBatch, error: null });
      const failures = await (await call(b, `/uploads/${id}/failures`)).text();
      expect(failures).toContain("Row 8, column `n`: `seven` is not an integer");
      expect(noLocalCopy(id)).toBe(true);
      const chunks = await a.ctx.db.selectFrom("upload_chunks").select("seq").where("upload_id", "=", id).execute();
      expect(chunks).toEqual([]);
      total += c.rows - failedBatch;
    }
    const listed = (await (await call(a, `/datasets/${ds.id}/records?limit=1`)).json()) as { total: number };
    expect(listed.total).toBe(total);
  }, 120_000);

  it("cancels from either replica and removes the bytes", async () => {
    const sent = await call(b, `/uploads?filename=x.jsonl`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: '{"a": 1}\n',
    });
    const { id } = (await sent.json()) as { id: string };
    expect((await a.ctx.db.selectFrom("upload_chunks").select("seq").where("upload_id", "=", id).execute()).length).toBe(1);
    const cancelled = (await (await call(a, `/uploads/${id}/cancel`, { method: "POST", body: "{}" })).json()) as { status: string };
    expect(cancelled.status).toBe("cancelled");
    expect(await a.ctx.db.selectFrom("upload_chunks").select("seq").where("upload_id", "=", id).execute()).toEqual([]);
  });
});
