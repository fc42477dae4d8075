import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/database.js";
import { openPostgresStore } from "../db/postgres.js";
import { createTestDatabase, testDatabaseUrl, type TestDatabase } from "../testing/pg-test-database.js";
import { PermanentJobError, type Job, type JobQueue } from "./port.js";
import { PgBossJobQueue } from "./pgboss-queue.js";

/** pg-boss needs a real PostgreSQL server: these run in the PostgreSQL stage (TESSERA_TEST_DATABASE_URL). */
const adminUrl = testDatabaseUrl();

async function settled(queue: JobQueue, id: string, timeoutMs = 60_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await queue.get(id);
    if (job && (job.status === "finished" || job.status === "failed")) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job?.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!adminUrl)("pg-boss job queue (PostgreSQL)", () => {
  let database: TestDatabase;
  let store: Store;
  const queues: PgBossJobQueue[] = [];
  const queue = (options: ConstructorParameters<typeof PgBossJobQueue>[2] = {}) => {
    const q = new PgBossJobQueue(store.db, database.url, {
      retryDelayMs: 1000,
      pollingIntervalSeconds: 0.5,
      superviseIntervalSeconds: 1,
      onError: () => {},
      ...options,
    });
    queues.push(q);
    return q;
  };

  beforeAll(async () => {
    database = await createTestDatabase(adminUrl!);
    store = await openPostgresStore(database.url, { poolSize: 4 });
  });
  afterAll(async () => {
    for (const q of queues) await q.stop().catch(() => {});
    await store?.close();
    await database?.drop();
  });

  it("runs a job to its result, retries a failing one and fails a permanent error at once", async () => {
    const q = queue();
    let calls = 0;
    q.register<{ n: number }, { doubled: number }>("double", async ({ n }) => ({ doubled: n * 2 }));
    q.register("flaky", async (_payload, context) => {
      calls += 1;
      if (context.attempt < 2) throw new Error("hub is down");
      return { attempt: context.attempt };
    });
    q.register("bad", async () => {
      throw new PermanentJobError("dataset is gone");
    });
    await q.start();
    const job = await q.enqueue("double", { n: 21 });
    expect(job).toMatchObject({ status: "queued", attempts: 0 });
    expect(await settled(q, job.id)).toMatchObject({ status: "finished", result: { doubled: 42 }, error: null, attempts: 1 });
    const flaky = await q.enqueue("flaky", {});
    expect(await settled(q, flaky.id)).toMatchObject({ status: "finished", result: { attempt: 2 }, attempts: 2 });
    expect(calls).toBe(2);
    const bad = await q.enqueue("bad", {});
    expect(await settled(q, bad.id)).toMatchObject({ status: "failed", error: "dataset is gone", attempts: 1 });
    const exhausted = await q.enqueue("flaky-forever", {}, { maxAttempts: 2 });
    q.register("flaky-forever", async () => {
      throw new Error("still down");
    });
    expect(await settled(q, exhausted.id)).toMatchObject({ status: "failed", error: "still down", attempts: 2 });
  });

  it("drains a backlog without waiting the polling interval per job, and sends jobs queued while stopped on start", async () => {
    const q = queue({ pollingIntervalSeconds: 2, concurrencyByType: { quick: 2 } });
    q.register("quick", async (payload) => payload);
    await q.start();
    const started = Date.now();
    const jobs = await Promise.all(Array.from({ length: 12 }, (_, n) => q.enqueue("quick", { n })));
    for (const job of jobs) expect(await settled(q, job.id)).toMatchObject({ status: "finished" });
    expect(Date.now() - started).toBeLessThan(4000); // one job per 2 s poll and worker would take 12 s

    await q.stop();
    const whileStopped = await q.enqueue("quick", { n: "late" });
    expect((await q.get(whileStopped.id))?.status).toBe("queued");
    await q.start();
    expect(await settled(q, whileStopped.id, 10_000)).toMatchObject({ status: "finished", result: { n: "late" }, attempts: 1 });
  });

  it("retries a job on another replica when the replica running it dies", async () => {
    const a = queue({ heartbeatSeconds: 10 });
    const b = queue({ heartbeatSeconds: 10 });
    let startedOnA!: () => void;
    const aStarted = new Promise<void>((resolve) => {
      startedOnA = resolve;
    });
    a.register("import", async () => {
      startedOnA();
      await new Promise(() => {});
    }); // hangs until the replica "dies"
    b.register("import", async (_payload, context) => ({ ranOn: "b", attempt: context.attempt }));
    await a.start();
    const job = await a.enqueue("import", { dataset: "x" });
    await aStarted;
    expect((await b.get(job.id))?.status).toBe("started");
    await a.crash();
    await b.start();
    const done = await settled(b, job.id, 60_000);
    expect(done).toMatchObject({ status: "finished", result: { ranOn: "b", attempt: 2 }, attempts: 2 });
  }, 90_000);
});
