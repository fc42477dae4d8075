import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_HUB_TOKEN, startFakeHub, type FakeHub } from "@tessera/fake-hub";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { Fixtures } from "../testing/fixtures.js";
import { testDatabaseUrl } from "../testing/pg-test-database.js";
import type { PgBossJobQueue } from "./pgboss-queue.js";

/**
 * Two stateless replicas on one PostgreSQL database (the PostgreSQL stage sets TESSERA_TEST_DATABASE_URL):
 * a token signed by one works on the other, a Hub import queued through one is run by the other's
 * pg-boss worker, and its result and records are read through the other.
 */
describe.skipIf(!testDatabaseUrl())("two replicas on one PostgreSQL database", () => {
  let hub: FakeHub;
  let a: TestServer;
  let b: TestServer;
  const hubEnv = () => ({
    TESSERA_HUB_DATASETS_SERVER_URL: hub.url,
    HF_TOKEN: FAKE_HUB_TOKEN,
    TESSERA_HUB_RETRY_DELAY_MS: "5",
    TESSERA_JOBS_RETRY_DELAY_MS: "1000",
  });

  beforeAll(async () => {
    hub = await startFakeHub();
    a = await startTestServer(hubEnv());
    b = await startTestServer({ ...hubEnv(), DATABASE_URL: a.ctx.store.databaseUrl! });
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await hub?.close();
  });

  it("share sign-in, run an import queued on one replica on the other and show its result on both", async () => {
    expect(b.owner).toBeNull(); // the owner was created once, by the first replica
    const fxA = new Fixtures(a);
    const ws = await fxA.workspace();
    const ds = await fxA.dataset(ws.id);
    await fxA.field(ds.id, { name: "text", title: "Text", required: true, settings: { type: "text" } });
    await fxA.question(ds.id, {
      name: "label",
      title: "Label",
      required: true,
      settings: {
        type: "label_selection",
        options: [
          { value: "negative", text: "negative" },
          { value: "positive", text: "positive" },
        ],
      },
    });
    await fxA.publish(ds.id);

    // Only replica B runs jobs: A's workers are stopped.
    await (a.ctx.jobs as PgBossJobQueue).pauseWorkers();
    const onA = (path: string, init: RequestInit = {}) =>
      fetch(`${a.url}/api/v1${path}`, { ...init, headers: { ...a.ownerHeaders, "content-type": "application/json" } });
    const onB = (path: string) => fetch(`${b.url}/api/v1${path}`, { headers: a.ownerHeaders }); // A's token on B: one signing secret
    const queued = await onA(`/datasets/${ds.id}/import`, {
      method: "POST",
      body: JSON.stringify({
        name: "tessera/sentiment-10k",
        subset: "default",
        split: "test",
        mapping: { fields: [{ source: "text", target: "text" }], suggestions: [{ source: "label", target: "label" }], external_id: "id" },
      }),
    });
    expect(queued.status).toBe(202);
    const { id } = (await queued.json()) as { id: string };

    const deadline = Date.now() + 60_000;
    let job: { status: string; result: { records_stored: number } | null } = { status: "queued", result: null };
    while (job.status !== "finished" && job.status !== "failed" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      const res = await onB(`/jobs/${id}`);
      expect(res.status).toBe(200);
      job = (await res.json()) as typeof job;
    }
    expect(job).toMatchObject({ status: "finished", result: { records_stored: 250 } });
    const listed = (await (await onB(`/datasets/${ds.id}/records?limit=1`)).json()) as { total: number };
    expect(listed.total).toBe(250);
    const onAToo = (await (await onA(`/jobs/${id}`)).json()) as { status: string };
    expect(onAToo.status).toBe("finished");
  }, 120_000);
});
