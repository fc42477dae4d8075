import { annotationSetup, api, ownerHeaders, ServerProcess, type Headers } from "./harness.js";

/**
 * N simulated annotators against one built server on loopback: each pages through the dataset with
 * the annotator search (10 records a page, its own pending records) and submits a response for every
 * record of the page, one request per record, alternating single and bulk submits. Bounded by count
 * (records) and time (seconds). Afterwards the database must hold exactly the acknowledged responses.
 */
export interface LoadOptions {
  annotators: number;
  seconds: number;
  records: number;
}
export interface LoadReport {
  annotators: number;
  seconds: number;
  requests: number;
  errors: string[];
  submitted: number;
  pages: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  requestsPerSecond: number;
  stored: number;
  duplicates: number;
  missing: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const server = ServerProcess.fresh({ TESSERA_LOGIN_MAX_PER_ADDRESS: "1000" });
  await server.start();
  try {
    const owner = await ownerHeaders(server.url);
    const { datasetId, annotators } = await annotationSetup(server.url, owner, options.annotators);
    for (let start = 0; start < options.records; start += 500) {
      const n = Math.min(500, options.records - start);
      const res = await api(server.url, "POST", `/datasets/${datasetId}/records/bulk`, owner, {
        items: Array.from({ length: n }, (_, i) => ({
          external_id: `l-${start + i}`,
          fields: { text: `load record ${start + i} about ${(start + i) % 2 ? "cats" : "dogs"}` },
        })),
      });
      if (res.status !== 201) throw new Error(`seed: ${res.status} ${JSON.stringify(res.body)}`);
    }
    const latencies: number[] = [];
    const errors: string[] = [];
    const acknowledged = new Map<string, Set<string>>();
    let pages = 0;
    const deadline = Date.now() + options.seconds * 1000;
    const timed = async (label: string, fn: () => Promise<Response>): Promise<Response | null> => {
      const t0 = performance.now();
      try {
        const res = await fn();
        latencies.push(performance.now() - t0);
        return res;
      } catch (error) {
        errors.push(`${label}: ${String(error)}`);
        return null;
      }
    };
    const annotator = async (who: { id: string; headers: Headers }, w: number) => {
      const mine = new Set<string>();
      acknowledged.set(who.id, mine);
      const json = { ...who.headers, "content-type": "application/json" };
      while (Date.now() < deadline) {
        const page = await timed("page", () =>
          fetch(`${server.url}/api/v1/me/datasets/${datasetId}/records/search?offset=0&limit=10&include=responses`, {
            method: "POST",
            headers: json,
            body: JSON.stringify({
              filters: { and: [{ type: "terms", scope: { entity: "response", property: "status" }, values: ["pending"] }] },
            }),
          }),
        );
        if (!page) return;
        if (page.status !== 200) {
          errors.push(`page: ${page.status} ${await page.text()}`);
          return;
        }
        pages++;
        const items = ((await page.json()) as { items: { record: { id: string } }[] }).items;
        if (items.length === 0) return;
        for (const [i, { record }] of items.entries()) {
          if (Date.now() >= deadline) return;
          if (mine.has(record.id)) {
            errors.push(`record ${record.id} offered again to ${who.id} after its response was acknowledged`);
            return;
          }
          const value = (i + w) % 2 ? "yes" : "no";
          const bulk = i % 2 === 1;
          const res = await timed("submit", () =>
            bulk
              ? fetch(`${server.url}/api/v1/me/responses/bulk`, {
                  method: "POST",
                  headers: json,
                  body: JSON.stringify({ items: [{ record_id: record.id, values: { label: { value } }, status: "submitted" }] }),
                })
              : fetch(`${server.url}/api/v1/records/${record.id}/responses`, {
                  method: "POST",
                  headers: json,
                  body: JSON.stringify({ values: { label: { value } }, status: "submitted" }),
                }),
          );
          if (!res) return;
          const body = await res.text();
          const okBulk = bulk && res.status === 200 && (JSON.parse(body) as { items: { error: unknown }[] }).items[0]?.error === null;
          if (res.status === 201 || okBulk) mine.add(record.id);
          else {
            errors.push(`submit: ${res.status} ${body.slice(0, 200)}`);
            return;
          }
        }
      }
    };
    const started = Date.now();
    await Promise.all(annotators.map((a, w) => annotator(a, w)));
    const elapsed = (Date.now() - started) / 1000;
    const db = server.openDatabase();
    let stored = 0;
    let duplicates = 0;
    let missing = 0;
    try {
      const rows = db.prepare("SELECT user_id, record_id FROM responses WHERE status = 'submitted'").all() as {
        user_id: string;
        record_id: string;
      }[];
      stored = rows.length;
      duplicates = (
        db.prepare("SELECT COUNT(*) AS n FROM (SELECT 1 FROM responses GROUP BY record_id, user_id HAVING COUNT(*) > 1)").get() as {
          n: number;
        }
      ).n;
      const have = new Set(rows.map((r) => `${r.user_id}/${r.record_id}`));
      for (const [user, set] of acknowledged) for (const record of set) if (!have.has(`${user}/${record}`)) missing++;
    } finally {
      db.close();
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      annotators: options.annotators,
      seconds: round(elapsed),
      requests: latencies.length,
      errors,
      pages,
      submitted: [...acknowledged.values()].reduce((n, s) => n + s.size, 0),
      latencyMs: {
        p50: round(percentile(sorted, 50)),
        p95: round(percentile(sorted, 95)),
        p99: round(percentile(sorted, 99)),
        max: round(sorted.at(-1) ?? 0),
      },
      requestsPerSecond: round(latencies.length / elapsed),
      stored,
      duplicates,
      missing,
    };
  } finally {
    await server.stop();
    server.remove();
  }
}
