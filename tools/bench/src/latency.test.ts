import { describe, expect, it } from "vitest";
import type { Annotator, Api, BenchDataset } from "./api.ts";
import { DatasetGenerator } from "./data.ts";
import { RecordPool, runLoad, scenarios, SUBMITTED_AFTER_CHANGE, type Scenario } from "./latency.ts";
import { SUBMITTED_FILTERS } from "./page-filters.ts";

const clients = ["a", "b", "c", "d"].map((username) => ({ username }) as Annotator);

describe("runLoad", () => {
  it("gives every client an untimed first call before the timed ones", async () => {
    const calls: Array<{ client: string; i: number }> = [];
    const scenario: Scenario = {
      name: "probe",
      recordsPerRequest: 0,
      run: async (c, i) => {
        calls.push({ client: c.username, i });
        await Promise.resolve();
      },
    };
    const summary = await runLoad(scenario, clients, { concurrency: 4, requests: 12, maxSeconds: 10, warmup: 1 });
    const untimed = calls.filter((c) => c.i < 0);
    expect(untimed.map((c) => c.client).sort()).toEqual(["a", "b", "c", "d"]);
    // Every untimed call comes before the first timed call, and only timed calls are counted.
    expect(calls.findIndex((c) => c.i >= 0)).toBe(untimed.length);
    expect(summary.count).toBe(12);
  });

  it("keeps a larger warm-up than the clients", async () => {
    let untimed = 0;
    const scenario: Scenario = {
      name: "probe",
      recordsPerRequest: 0,
      run: async (_c, i) => {
        if (i < 0) untimed++;
        await Promise.resolve();
      },
    };
    await runLoad(scenario, clients, { concurrency: 1, requests: 2, maxSeconds: 10, warmup: 5 });
    expect(untimed).toBe(5);
  });

  it("runs a scenario's untimed work before each of its calls, warm-ups included, on the same client", async () => {
    const events: string[] = [];
    const scenario: Scenario = {
      name: "probe",
      recordsPerRequest: 0,
      before: async (c, i) => {
        events.push(`before ${c.username} ${i}`);
        await Promise.resolve();
      },
      run: async (c, i) => {
        events.push(`run ${c.username} ${i}`);
        await Promise.resolve();
      },
    };
    const summary = await runLoad(scenario, clients, { concurrency: 1, requests: 3, maxSeconds: 10, warmup: 2 });
    expect(events).toEqual([
      "before a -1",
      "run a -1",
      "before a -2",
      "run a -2",
      ...[0, 1, 2].flatMap((i) => [`before a ${i}`, `run a ${i}`]),
    ]);
    expect(summary.count).toBe(3);
  });
});

describe("scenarios", () => {
  /** The text query of each search a scenario's calls send, in order. */
  const queriesOf = async (names: string[], calls: number): Promise<Map<string, string[]>> => {
    const sent = new Map<string, string[]>(names.map((n) => [n, []]));
    let current = "";
    const api = {
      raw: (_method: string, _path: string, body?: unknown) => {
        const q = (body as { query?: { text?: { q?: string } } } | undefined)?.query?.text?.q;
        if (q !== undefined) sent.get(current)!.push(q);
        return Promise.resolve(new Response(JSON.stringify({ items: [], total: 0 })));
      },
    } as unknown as Api;
    const client = { username: "a", api } as Annotator;
    const rows = scenarios({ datasetId: "d" } as BenchDataset, new DatasetGenerator(), new RecordPool([]), []);
    for (const name of names) {
      current = name;
      const row = rows.find((r) => r.name === name)!;
      for (let i = 0; i < calls; i++) await row.run(client, i);
    }
    return sent;
  };

  it("gives the queue's new-phrase row the same phrases whether the Submitted view's phrase row ran before it or not", async () => {
    const queue = "text search, new phrase each call (cold)";
    const submitted = "text search, new phrase + submitted (cold)";
    const alone = (await queriesOf([queue], 50)).get(queue)!;
    const both = await queriesOf([submitted, queue], 50);
    expect(both.get(queue)).toEqual(alone);
    // Neither row asks a phrase the other asked (each call a query the server never saw).
    const asked = new Set(both.get(submitted));
    expect(asked.size).toBe(50);
    expect(alone.filter((q) => asked.has(q))).toEqual([]);
  });

  it("changes one of the caller's answers before each Submitted view search: a Submit made a draft, then submitted again, in turn", async () => {
    const sent: Array<{ path: string; body: unknown }> = [];
    const api = {
      raw: (_method: string, path: string, body?: unknown) => {
        sent.push({ path, body });
        const reply = path.includes("bulk")
          ? { items: [{ error: null }] }
          : { items: [{ record: { id: "r1" } }, { record: { id: "r2" } }], total: 2 };
        return Promise.resolve(new Response(JSON.stringify(reply)));
      },
    } as unknown as Api;
    const client = { username: "a", api } as Annotator;
    const row = scenarios({ datasetId: "d" } as BenchDataset, new DatasetGenerator(), new RecordPool([]), []).find(
      (r) => r.name === SUBMITTED_AFTER_CHANGE,
    )!;
    const changes: string[] = [];
    for (let i = 0; i < 4; i++) {
      sent.length = 0;
      await row.before!(client, i);
      for (const { body } of sent.filter((x) => x.path.includes("bulk"))) {
        const [item] = (body as { items: Array<{ record_id: string; status: string }> }).items;
        changes.push(`${item!.record_id} ${item!.status}`);
      }
      sent.length = 0;
      await row.run(client, i);
      expect(sent).toHaveLength(1);
      const body = sent[0]!.body as { query: { text: { q: string } }; filters: unknown };
      expect(body.filters).toEqual(SUBMITTED_FILTERS);
      expect(body.query.text.q.length).toBeGreaterThan(0);
    }
    expect(changes).toEqual(["r1 draft", "r1 submitted", "r2 draft", "r2 submitted"]);
  });
});
