import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openEmbeddedStore, type Store } from "../db/database.js";
import { EmbeddedJobQueue } from "./embedded-queue.js";
import { PermanentJobError, type Job, type JobQueue } from "./port.js";

let dir: string;
let store: Store;
const queues: JobQueue[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "tessera-jobs-"));
  store = await openEmbeddedStore(dir);
});
afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.stop();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const queue = (options: ConstructorParameters<typeof EmbeddedJobQueue>[1] = {}) => {
  const q = new EmbeddedJobQueue(store.db, { retryDelayMs: 1, ...options });
  queues.push(q);
  return q;
};

async function settled(q: JobQueue, id: string, timeoutMs = 10_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await q.get(id);
    if (job && (job.status === "finished" || job.status === "failed")) return job;
    if (Date.now() > deadline) throw new Error(`job still ${job?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("EmbeddedJobQueue", () => {
  it("runs a queued job once and stores its result", async () => {
    const q = queue();
    let runs = 0;
    q.register<{ n: number }, { double: number }>("double", async ({ n }) => {
      runs += 1;
      return { double: n * 2 };
    });
    await q.start();
    const job = await q.enqueue("double", { n: 21 });
    expect(job.status).toBe("queued");
    expect(await settled(q, job.id)).toMatchObject({ status: "finished", result: { double: 42 }, error: null, attempts: 1 });
    expect(runs).toBe(1);
    expect(await q.get("unknown")).toBeNull();
  });

  it("retries a retryable failure up to maxAttempts, then marks the job failed with the error", async () => {
    const q = queue({ maxAttempts: 3 });
    let runs = 0;
    q.register("flaky", async () => {
      runs += 1;
      throw new Error(`boom ${runs}`);
    });
    await q.start();
    const job = await settled(q, (await q.enqueue("flaky", null)).id);
    expect(job).toMatchObject({ status: "failed", error: "boom 3", attempts: 3 });
    expect(runs).toBe(3);
  });

  it("succeeds on a retry", async () => {
    const q = queue({ maxAttempts: 3 });
    let runs = 0;
    q.register("second-time", async () => {
      runs += 1;
      if (runs === 1) throw new Error("transient");
      return "ok";
    });
    await q.start();
    expect(await settled(q, (await q.enqueue("second-time", null)).id)).toMatchObject({ status: "finished", result: "ok", attempts: 2 });
  });

  it("fails at once on a PermanentJobError or an unknown job type", async () => {
    const q = queue({ maxAttempts: 3 });
    let runs = 0;
    q.register("bad-input", async () => {
      runs += 1;
      throw new PermanentJobError("Dataset not found or available on Hugging Face");
    });
    await q.start();
    expect(await settled(q, (await q.enqueue("bad-input", null)).id)).toMatchObject({
      status: "failed",
      error: "Dataset not found or available on Hugging Face",
      attempts: 1,
    });
    expect(runs).toBe(1);
    expect(await settled(q, (await q.enqueue("nobody-handles-this", null)).id)).toMatchObject({
      status: "failed",
      error: "No handler for jobs of type `nobody-handles-this`",
    });
  });

  it("runs jobs one at a time in order by default", async () => {
    const q = queue();
    const log: string[] = [];
    let active = 0;
    q.register<{ name: string }, null>("step", async ({ name }) => {
      active += 1;
      expect(active).toBe(1);
      log.push(name);
      await new Promise((resolve) => setTimeout(resolve, 5));
      active -= 1;
      return null;
    });
    const ids = [];
    for (const name of ["a", "b", "c", "d"]) ids.push((await q.enqueue("step", { name })).id);
    await q.start();
    for (const id of ids) await settled(q, id);
    expect(log).toEqual(["a", "b", "c", "d"]);
  });

  it("on shutdown aborts the running job and queues it again; the next start resumes it", async () => {
    const first = queue();
    let seen: AbortSignal | null = null;
    first.register(
      "long",
      (_payload, context) =>
        new Promise((_resolve, reject) => {
          seen = context.signal;
          context.signal.addEventListener("abort", () => reject(new Error("aborted")));
        }),
    );
    await first.start();
    const job = await first.enqueue("long", null);
    while ((await first.get(job.id))?.status !== "started") await new Promise((resolve) => setTimeout(resolve, 5));
    await first.stop();
    expect(seen!.aborted).toBe(true);
    expect(await first.get(job.id)).toMatchObject({ status: "queued", attempts: 0 });

    const second = queue();
    second.register("long", async () => "resumed");
    await second.start();
    expect(await settled(second, job.id)).toMatchObject({ status: "finished", result: "resumed" });
  });

  it("re-queues jobs left started by a crash on start", async () => {
    const q = queue();
    q.register("noop", async () => "done");
    const job = await q.enqueue("noop", null);
    await store.db.updateTable("jobs").set({ status: "started", attempts: 1 }).where("id", "=", job.id).execute();
    await q.start();
    expect(await settled(q, job.id)).toMatchObject({ status: "finished", result: "done" });
  });
});
