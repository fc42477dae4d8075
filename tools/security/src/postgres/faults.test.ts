import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { annotationSetup, ok, ownerHeaders, type Headers } from "../harness.js";
import {
  admin,
  alive,
  createDatabase,
  killBackend,
  restartPostgres,
  startPostgres,
  startReplica,
  stopPostgres,
  terminateBackends,
  waitForPostgres,
} from "./cluster.js";

/**
 * Tessera on PostgreSQL while PostgreSQL fails under it (the PostgreSQL stage's cluster): during a
 * bulk import (4 clients, 200 records with a vector each per call) and a 20-annotator load, every
 * connection is terminated (pg_terminate_backend), a backend is killed with kill -9 (PostgreSQL then
 * resets every connection and recovers), PostgreSQL is restarted (`pg_ctl restart -m immediate`) and
 * it is stopped for 3 s (`pg_ctl stop -m immediate`, then `pg_ctl start`: while it is down a signed-in
 * caller's /api/v1/status says the database is unreachable).
 * With one replica and with two on one database, each server must stay up, answer requests caught
 * in the outage with 503 + Retry-After (never 500), serve again within 5 s of PostgreSQL being back,
 * keep every acknowledged record and response, store each unacknowledged bulk whole or not at all,
 * and run jobs again (a webhook delivery through the pg-boss queue).
 */

const BATCH = 200;
const DIMS = 8;
const STREAMS = 4;
const ANNOTATORS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fieldText = (batch: string, i: number) => `fault test ${batch} record ${i} ${"lorem ipsum ".repeat(6)}`;
const vectorOf = (batch: string, i: number) =>
  Array.from({ length: DIMS }, (_, d) => Math.fround(Math.sin((batch.length + i) * 7.3 + d * 1.7 + batch.charCodeAt(batch.length - 1))));

interface Observed {
  unavailable: number;
  /** 503s of a saturated pool (every connection in use for 5 s while none was lost): load, not the faults. */
  busy: number;
  unexpected: string[];
}

/**
 * POST JSON, bounded in time; a 503 must carry Retry-After and the database message (or, when the
 * pool was saturated by the load rather than cut off by a fault, the busy message with its shorter
 * Retry-After); anything unexpected is recorded.
 */
async function post(
  url: string,
  headers: Headers,
  body: unknown,
  seen: Observed,
  expected: number[],
): Promise<{ status: number; json: unknown }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    seen.unexpected.push(`${url}: no answer (${String(error)})`);
    return { status: 0, json: null };
  }
  const text = await res.text();
  const json: unknown = text ? JSON.parse(text) : null;
  if (res.status === 503) {
    const detail = (json as { detail?: string } | null)?.detail ?? "";
    const retryAfter = res.headers.get("retry-after");
    if (retryAfter === "5" && /database is unavailable/.test(detail)) seen.unavailable++;
    else if (retryAfter === "2" && /server is busy/.test(detail)) seen.busy++;
    else seen.unexpected.push(`503 without Retry-After or message: ${text}`);
  } else if (!expected.includes(res.status)) {
    seen.unexpected.push(`${url}: ${res.status} ${text.slice(0, 300)}`);
  }
  return { status: res.status, json };
}

/** A local receiver of webhook deliveries (to see the job queue work after the faults). */
async function receiver(): Promise<{ url: string; types: string[]; close(): Promise<void> }> {
  const types: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      try {
        types.push((JSON.parse(body) as { type: string }).type);
      } catch {
        /* not ours */
      }
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    types,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

describe.each([1, 2])("PostgreSQL failing under %i replica(s)", (replicaCount) => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let replicas: Awaited<ReturnType<typeof startReplica>>[] = [];
  beforeAll(async () => {
    database = await createDatabase();
    for (let i = 0; i < replicaCount; i++) replicas.push(await startReplica(database.url));
  });
  afterAll(async () => {
    for (const r of replicas) await r.stop();
    replicas = [];
    await database?.drop();
  });

  it("stays up, answers 503 during the outages, recovers within 5 s and keeps every acknowledged record and response", async () => {
    const urls = replicas.map((r) => r.url);
    const owner = await ownerHeaders(urls[0]!);
    const { datasetId: annotated, annotators } = await annotationSetup(urls[0]!, owner, ANNOTATORS);
    const seeded = await ok<{ items: { id: string }[] }>(urls[0]!, "POST", `/datasets/${annotated}/records/bulk`, owner, {
      items: Array.from({ length: 400 }, (_, i) => ({ external_id: `a-${i}`, fields: { text: `annotate me ${i}` } })),
    });
    expect(seeded.items).toHaveLength(400);
    const { workspaceId, datasetId: imported } = await importDataset(urls[0]!, owner);
    const hooks = await receiver();
    await ok(urls[0]!, "POST", "/webhooks", owner, { url: hooks.url, events: ["dataset.created"] });

    const seen: Observed = { unavailable: 0, busy: 0, unexpected: [] };
    let stop = false;

    // Bulk import: each call a new batch; acknowledged (201) batches must be there whole.
    const sent = new Set<string>();
    const acknowledgedBatches = new Set<string>();
    const importer = async (s: number) => {
      const url = `${urls[s % urls.length]!}/api/v1/datasets/${imported}/records/bulk`;
      for (let k = 0; !stop; k++) {
        const batch = `s${s}b${k}`;
        sent.add(batch);
        const items = Array.from({ length: BATCH }, (_, i) => ({
          external_id: `${batch}-${i}`,
          fields: { text: fieldText(batch, i) },
          vectors: { emb: vectorOf(batch, i) },
        }));
        const { status } = await post(url, owner, { items }, seen, [201]);
        if (status === 201) acknowledgedBatches.add(batch);
        else await sleep(100);
      }
    };

    // 20 annotators, each paging through its pending records and answering each, retrying after a 503.
    const acknowledged = new Map<string, string>(); // user/record -> value
    const unacknowledged = new Map<string, string>(); // stored by an attempt whose answer was lost (409 on the retry)
    const annotator = async (who: { id: string; headers: Headers }, w: number) => {
      const base = urls[w % urls.length]!;
      while (!stop) {
        const page = await post(
          `${base}/api/v1/me/datasets/${annotated}/records/search?offset=0&limit=10`,
          who.headers,
          { filters: { and: [{ type: "terms", scope: { entity: "response", property: "status" }, values: ["pending"] }] } },
          seen,
          [200],
        );
        if (page.status !== 200) {
          await sleep(100);
          continue;
        }
        const items = (page.json as { items: { record: { id: string } }[] }).items;
        if (items.length === 0) return;
        for (const [i, { record }] of items.entries()) {
          const value = (i + w) % 2 ? "yes" : "no";
          const key = `${who.id}/${record.id}`;
          for (let attempt = 0; !stop || attempt > 0; attempt++) {
            if (attempt > 20) {
              seen.unexpected.push(`${key}: no answer after 20 attempts`);
              return;
            }
            const single = (i + w) % 3 !== 0;
            const res = single
              ? await post(
                  `${base}/api/v1/records/${record.id}/responses`,
                  who.headers,
                  { values: { label: { value } }, status: "submitted" },
                  seen,
                  [201, 409],
                )
              : await post(
                  `${base}/api/v1/me/responses/bulk`,
                  who.headers,
                  { items: [{ record_id: record.id, values: { label: { value } }, status: "submitted" }] },
                  seen,
                  [200],
                );
            const bulkOk = !single && res.status === 200 && (res.json as { items: { error: unknown }[] }).items[0]?.error === null;
            if (res.status === 201 || bulkOk) {
              acknowledged.set(key, value);
              break;
            }
            if (res.status === 409 && attempt > 0) {
              unacknowledged.set(key, value);
              break;
            } // stored by the attempt caught in the outage
            if (res.status !== 503) {
              seen.unexpected.push(`${key}: ${res.status} ${JSON.stringify(res.json)}`);
              return;
            }
            await sleep(100 + 50 * attempt);
          }
          if (stop) return;
        }
      }
    };

    // Service back: every replica answers an authenticated request (the database read behind it) again.
    const recoveries: { fault: string; ms: number }[] = [];
    const recovered = async (fault: string) => {
      const back = await waitForPostgres();
      await Promise.all(
        urls.map(async (url) => {
          for (;;) {
            const res = await fetch(`${url}/api/v1/me`, { headers: owner, signal: AbortSignal.timeout(10_000) }).catch(() => null);
            if (res?.status === 200) break;
            if (Date.now() - back > 30_000) throw new Error(`${url} did not serve again within 30 s after ${fault}`);
            await sleep(20);
          }
          recoveries.push({ fault, ms: Date.now() - back });
        }),
      );
    };

    const load = [...Array.from({ length: STREAMS }, (_, s) => importer(s)), ...annotators.map((a, w) => annotator(a, w))];
    await sleep(2000);
    const terminated = await terminateBackends(database.name);
    await recovered("pg_terminate_backend of every connection");
    await sleep(2000);
    await killBackend(database.name);
    await recovered("kill -9 of a backend");
    await sleep(2000);
    await restartPostgres();
    await recovered("pg_ctl restart -m immediate");
    await sleep(2000);
    // A longer outage: PostgreSQL down for 3 s. Meanwhile each replica answers, tells a signed-in
    // caller that the database is unreachable, and answers requests that need it with 503.
    await stopPostgres();
    const duringOutage: string[] = [];
    for (const url of urls) {
      const status = await fetch(`${url}/api/v1/status`, { headers: owner, signal: AbortSignal.timeout(10_000) });
      duringOutage.push(`${url} status ${status.status} ${await status.text()}`);
      const me = await fetch(`${url}/api/v1/me`, { headers: owner, signal: AbortSignal.timeout(10_000) });
      duringOutage.push(`${url} me ${me.status} retry-after=${me.headers.get("retry-after")}`);
    }
    await sleep(3000);
    await startPostgres();
    await recovered("pg_ctl stop -m immediate, 3 s down, pg_ctl start");
    await sleep(2000);
    stop = true;
    await Promise.all(load);

    // Each server is still the process it was, and never needed main.ts's last line of defence.
    for (const r of replicas) {
      expect(alive(r.pid), `replica ${r.url} exited:\n${r.output()}`).toBe(true);
      expect(r.output()).not.toMatch(/survived|Unhandled 'error' event/);
    }
    console.info(
      `faults (${replicaCount} replica(s)): ${terminated} connections terminated; ${seen.unavailable} answers 503 (${seen.busy} more 503 'busy'); ` +
        `${sent.size} batches sent, ${acknowledgedBatches.size} acknowledged; ${acknowledged.size} responses acknowledged, ${unacknowledged.size} stored unacknowledged; ` +
        `service back after PostgreSQL: ${recoveries.map((r) => `${r.ms} ms (${r.fault})`).join(", ")}`,
    );
    expect(duringOutage).toEqual(
      urls.flatMap((url) => [`${url} status 200 {"version":"2.8.0","database":{"reachable":false}}`, `${url} me 503 retry-after=5`]),
    );
    expect(seen.unexpected.slice(0, 10)).toEqual([]);
    expect(seen.unavailable).toBeGreaterThan(0); // requests were caught in the outages, and answered 503
    for (const r of recoveries) expect(r.ms, r.fault).toBeLessThanOrEqual(5000);
    expect(acknowledgedBatches.size).toBeGreaterThan(STREAMS);
    expect(acknowledged.size).toBeGreaterThan(ANNOTATORS);

    await admin(async (db) => {
      // Records: every stored batch whole (records and vectors), every acknowledged batch there as sent.
      const { rows } = await db.query<{ external_id: string; fields: { text: string }; vector: number[] | null }>(
        "select r.external_id, r.fields, v.vector from records r left join record_vectors v on v.record_id = r.id where r.dataset_id = $1",
        [imported],
      );
      const byBatch = new Map<string, typeof rows>();
      for (const row of rows) {
        const batch = row.external_id.slice(0, row.external_id.lastIndexOf("-"));
        byBatch.set(batch, [...(byBatch.get(batch) ?? []), row]);
      }
      expect([...byBatch].filter(([, list]) => list.length !== BATCH).map(([b, list]) => `${b}: ${list.length}`)).toEqual([]);
      expect([...byBatch.keys()].filter((b) => !sent.has(b))).toEqual([]);
      const wrong: string[] = [];
      for (const batch of acknowledgedBatches) {
        const stored = new Map((byBatch.get(batch) ?? []).map((r) => [r.external_id, r]));
        for (let i = 0; i < BATCH; i++) {
          const row = stored.get(`${batch}-${i}`);
          if (
            !row ||
            row.fields.text !== fieldText(batch, i) ||
            JSON.stringify(row.vector?.map(Math.fround)) !== JSON.stringify(vectorOf(batch, i))
          )
            wrong.push(`${batch}-${i}`);
        }
      }
      expect(wrong.slice(0, 10)).toEqual([]);

      // Responses: every acknowledged one there with its value, one per user and record.
      const responses = await db.query<{ user_id: string; record_id: string; status: string; values: { label: { value: string } } }>(
        "select s.user_id, s.record_id, s.status, s.values from responses s join records r on r.id = s.record_id where r.dataset_id = $1",
        [annotated],
      );
      const stored = new Map(responses.rows.map((r) => [`${r.user_id}/${r.record_id}`, r]));
      expect(stored.size).toBe(responses.rows.length);
      const lost = [...acknowledged, ...unacknowledged].filter(([key, value]) => {
        const r = stored.get(key);
        return !r || r.status !== "submitted" || r.values.label.value !== value;
      });
      expect(lost.slice(0, 10)).toEqual([]);
      // Record statuses follow the responses (min_submitted = 1), written in the same transactions.
      const completed = await db.query<{ n: number }>(
        "select count(*)::int as n from records where dataset_id = $1 and status = 'completed'",
        [annotated],
      );
      expect(completed.rows[0]!.n).toBe(new Set(responses.rows.filter((r) => r.status === "submitted").map((r) => r.record_id)).size);
    }, database.url);

    // Jobs run again: a webhook delivery through the pg-boss queue.
    await ok(urls[urls.length - 1]!, "POST", "/datasets", owner, { name: `after-faults-${replicaCount}`, workspace_id: workspaceId });
    const deadline = Date.now() + 30_000;
    while (!hooks.types.includes("dataset.created") && Date.now() < deadline) await sleep(50);
    await hooks.close();
    expect(hooks.types).toContain("dataset.created");

    // Signed in, /api/v1/status says the database is reachable (on every replica).
    for (const url of urls) {
      const status = (await (await fetch(`${url}/api/v1/status`, { headers: owner })).json()) as { database?: { reachable: boolean } };
      expect(status.database?.reachable).toBe(true);
    }
  }, 300_000);
});

/** A published dataset with a text field, a label question and an 8-dimension vector setting `emb`. */
async function importDataset(url: string, owner: Headers): Promise<{ workspaceId: string; datasetId: string }> {
  const stamp = Date.now().toString(36);
  const ws = await ok<{ id: string }>(url, "POST", "/workspaces", owner, { name: `import-${stamp}` });
  const ds = await ok<{ id: string }>(url, "POST", "/datasets", owner, { name: `import-${stamp}`, workspace_id: ws.id });
  await ok(url, "POST", `/datasets/${ds.id}/fields`, owner, { name: "text", title: "Text", settings: { type: "text" } });
  await ok(url, "POST", `/datasets/${ds.id}/questions`, owner, {
    name: "label",
    title: "Label",
    settings: {
      type: "label_selection",
      options: [
        { value: "yes", text: "Yes" },
        { value: "no", text: "No" },
      ],
    },
  });
  await ok(url, "POST", `/datasets/${ds.id}/vectors-settings`, owner, { name: "emb", title: "Embedding", dimensions: DIMS });
  await ok(url, "PUT", `/datasets/${ds.id}/publish`, owner);
  return { workspaceId: ws.id, datasetId: ds.id };
}
