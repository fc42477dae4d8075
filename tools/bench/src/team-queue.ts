/**
 * The team annotation queue under load (issue 29): `annotators` annotators at once, each taking the
 * next record of their pending queue exactly as the web app asks for it (response status pending
 * and record status pending, the first record) and submitting it, for `seconds` seconds, on a
 * dataset of `records` records with `distribution: {strategy: "overlap", min_submitted: N}`.
 * Mode `plain` is the queue without reservations (what the SDK's search and the web app did
 * before), mode `reserve` the web app's reserving queue (`reserve=true`).
 *
 * `--windows`: how many records one ask fetches. 1 asks for the first record before every answer;
 * 10 is how the web app's focus view asks (the domain's FOCUS_FETCH_SIZE): a window of 10 after the
 * records it holds, asked again when 5 or fewer are left (its buffer), so one ask per ~5 answers.
 *
 * `--think-ms`: how long an annotator reads a record before submitting it (each time uniform in
 * 0.5-1.5 times the figure; default 0: no think time, every annotator submits the moment a record
 * arrives, which saturates the server). A comma list runs each pace.
 *
 *   pnpm --filter @tessera/bench bench:team -- [--annotators 50] [--records 2000] [--min-submitted 1,2,3]
 *     [--seconds 60] [--modes plain,reserve] [--windows 1,10] [--think-ms 0,1000] [--postgres URL] [--json FILE]
 *
 * Reports answers, answers per minute, answers beyond min_submitted (and the largest count on one
 * record), records completed, idle takes (an empty answer while records free for that annotator
 * remained, re-asked at once) and take/submit latency. Results: docs/performance.md.
 */
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Api, createAnnotators, type Annotator } from "./api.ts";
import { readCpuMs, startServer } from "./server.ts";
import { summarize, type Summary } from "./stats.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  options: {
    annotators: { type: "string", default: "50" },
    records: { type: "string", default: "2000" },
    "min-submitted": { type: "string", default: "1,2,3" },
    seconds: { type: "string", default: "60" },
    modes: { type: "string", default: "plain,reserve" },
    windows: { type: "string", default: "1,10" },
    "think-ms": { type: "string", default: "0" },
    postgres: { type: "string" },
    json: { type: "string" },
    profile: { type: "string" },
  },
});
const int = (v: string | undefined, name: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
  return n;
};
const opts = {
  annotators: int(args.annotators, "annotators"),
  records: int(args.records, "records"),
  minSubmitted: args["min-submitted"]!.split(",").map((v) => int(v, "min-submitted")),
  seconds: Math.min(int(args.seconds, "seconds"), 600),
  modes: args.modes!.split(",").map((m) => {
    if (m !== "plain" && m !== "reserve") throw new Error("--modes: plain and/or reserve");
    return m;
  }),
  windows: args.windows!.split(",").map((v) => int(v, "windows")),
  thinkMs: args["think-ms"]!.split(",").map((v) => (v === "0" ? 0 : int(v, "think-ms"))),
};
const log = (msg: string) => process.stderr.write(`[bench:team ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const QUEUE = {
  filters: {
    and: [
      { type: "terms", scope: { entity: "response", property: "status" }, values: ["pending"] },
      { type: "terms", scope: { entity: "record", property: "status" }, values: ["pending"] },
    ],
  },
};

interface Row {
  store: string;
  mode: string;
  /** Records per ask (1: the first record before each answer; 10: the web app's focus view). */
  window: number;
  /** Mean time an annotator reads a record before submitting it, ms (0: none, the server saturates). */
  thinkMs: number;
  minSubmitted: number;
  annotators: number;
  records: number;
  seconds: number;
  answers: number;
  answersPerMinute: number;
  beyond: number;
  beyondPercent: number;
  maxOnOneRecord: number;
  completed: number;
  idleTakes: number;
  waits: number;
  errors: number;
  /** The failed calls by status and their first detail (e.g. `take 503 x3: ...`). */
  errorKinds: string[];
  take: Summary;
  submit: Summary;
  /** Answers that count (at most min_submitted per record) per minute. */
  usefulPerMinute: number;
  /** Server CPU (all threads) per take + submit, in ms: independent of the load of a shared machine. */
  serverCpuMsPerAnswer: number;
}

async function createQueueDataset(owner: Api, workspaceId: string, name: string, records: number, minSubmitted: number): Promise<string> {
  const ds = await owner.json<{ id: string }>("POST", "/datasets", {
    name,
    workspace_id: workspaceId,
    distribution: { strategy: "overlap", min_submitted: minSubmitted },
  });
  await owner.json("POST", `/datasets/${ds.id}/fields`, { name: "text", title: "Text", required: true, settings: { type: "text" } });
  await owner.json("POST", `/datasets/${ds.id}/questions`, {
    name: "label",
    title: "Label",
    required: true,
    settings: {
      type: "label_selection",
      options: [
        { value: "yes", text: "Yes" },
        { value: "no", text: "No" },
      ],
    },
  });
  await owner.json("PUT", `/datasets/${ds.id}/publish`);
  for (let i = 0; i < records; i += 500) {
    const items = Array.from({ length: Math.min(500, records - i) }, (_, j) => ({
      external_id: `q-${i + j}`,
      fields: { text: `Record ${i + j}: is this sentence about a team sprint?` },
    }));
    await owner.json("POST", `/datasets/${ds.id}/records/bulk`, { items });
  }
  return ds.id;
}

async function submittedPerRecord(owner: Api, datasetId: string): Promise<number[]> {
  const out: number[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await owner.json<{ items: { responses?: { status: string }[] }[] }>(
      "GET",
      `/datasets/${datasetId}/records?include=responses&offset=${offset}&limit=1000`,
    );
    for (const r of page.items) out.push((r.responses ?? []).filter((s) => s.status === "submitted").length);
    if (page.items.length < 1000) return out;
  }
}

async function run(
  owner: Api,
  annotators: Annotator[],
  datasetId: string,
  mode: string,
  window: number,
  minSubmitted: number,
  thinkMs: number,
  store: string,
  serverPid: number,
): Promise<Row> {
  const reserve = mode === "reserve";
  // the web app asks for the next window after the records it holds, when its buffer runs low
  const buffer = Math.floor(window / 2);
  const path = (offset: number) =>
    `/me/datasets/${datasetId}/records/search?include=responses&offset=${offset}&limit=${window}${reserve ? "&reserve=true" : ""}`;
  const takes: number[] = [];
  const submits: number[] = [];
  let idleTakes = 0;
  let waits = 0;
  let errors = 0;
  const errorKinds = new Map<string, { n: number; detail: string }>();
  const failed = async (call: string, res: Response) => {
    errors++;
    const key = `${call} ${res.status}`;
    const detail = (await res.text().catch(() => "")).slice(0, 160);
    const kind = errorKinds.get(key) ?? { n: 0, detail };
    kind.n++;
    errorKinds.set(key, kind);
  };
  const cpuBefore = readCpuMs(serverPid);
  const started = Date.now();
  const deadline = started + opts.seconds * 1000;
  const take = async (a: Annotator, offset: number) => {
    const t0 = performance.now();
    const res = await a.api.raw("POST", path(offset), QUEUE);
    const body = res.ok
      ? ((await res.json()) as {
          items: { record: { id: string } }[];
          total: number;
          reservations?: { held_by_others: { records: number } };
        })
      : null;
    if (!body) {
      await failed("take", res);
      return null;
    }
    takes.push(performance.now() - t0);
    return body;
  };
  await Promise.all(
    annotators.map(async (a) => {
      const held: string[] = []; // fetched, not answered yet (the web app's loaded records ahead)
      while (Date.now() < deadline) {
        if (held.length <= buffer) {
          let page = await take(a, held.length);
          if (page && page.items.length === 0 && page.total > held.length) page = await take(a, held.length); // asked again at once: still nothing while records are free?
          if (!page) continue;
          for (const { record } of page.items) if (!held.includes(record.id)) held.push(record.id);
          if (held.length === 0) {
            if (page.total > 0) idleTakes++;
            if ((page.reservations?.held_by_others.records ?? 0) > 0 || page.total > 0) {
              waits++;
              await new Promise((r) => setTimeout(r, 250));
              continue;
            }
            return; // nothing left for this annotator
          }
        }
        const recordId = held.shift()!;
        if (thinkMs > 0) await new Promise((r) => setTimeout(r, thinkMs * (0.5 + Math.random())));
        if (Date.now() >= deadline) break;
        const t0 = performance.now();
        const res = await a.api.raw("POST", `/records/${recordId}/responses`, {
          status: "submitted",
          values: { label: { value: "yes" } },
        });
        if (res.status === 201) {
          await res.text();
          submits.push(performance.now() - t0);
        } else await failed("submit", res);
      }
    }),
  );
  const wallMs = Date.now() - started;
  const cpuMs = readCpuMs(serverPid) - cpuBefore;
  const counts = await submittedPerRecord(owner, datasetId);
  const answers = counts.reduce((s, n) => s + n, 0);
  const beyond = counts.reduce((s, n) => s + Math.max(0, n - minSubmitted), 0);
  return {
    store,
    mode,
    window,
    thinkMs,
    minSubmitted,
    annotators: annotators.length,
    records: counts.length,
    seconds: Math.round(wallMs / 100) / 10,
    answers,
    answersPerMinute: Math.round((answers / wallMs) * 60_000),
    beyond,
    beyondPercent: answers ? Math.round((beyond / answers) * 1000) / 10 : 0,
    maxOnOneRecord: Math.max(0, ...counts),
    completed: counts.filter((n) => n >= minSubmitted).length,
    idleTakes,
    waits,
    errors,
    errorKinds: [...errorKinds].map(([key, { n, detail }]) => `${key} x${n}: ${detail}`),
    take: summarize(takes, 0, wallMs),
    submit: summarize(submits, 0, wallMs),
    usefulPerMinute: Math.round(((answers - beyond) / wallMs) * 60_000),
    serverCpuMsPerAnswer: submits.length ? Math.round((cpuMs / submits.length) * 10) / 10 : 0,
  };
}

const store = args.postgres ? "PostgreSQL" : "SQLite";
log(
  `${store}: ${opts.annotators} annotators, ${opts.records} records, min_submitted ${opts.minSubmitted.join(",")}, ${opts.seconds} s per run, modes ${opts.modes.join(",")}; load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
const server = await startServer({ postgres: args.postgres, cpuProfileDir: args.profile });
const rows: Row[] = [];
try {
  const owner = new Api(server.url, server.ownerApiKey);
  const ws = await owner.json<{ id: string }>("POST", "/workspaces", { name: `team-${Date.now()}` });
  const annotators = await createAnnotators(owner, ws.id, opts.annotators, `team-${Date.now().toString(36)}`);
  for (const thinkMs of opts.thinkMs)
    for (const window of opts.windows)
      for (const minSubmitted of opts.minSubmitted) {
        for (const mode of opts.modes) {
          const datasetId = await createQueueDataset(
            owner,
            ws.id,
            `team-${mode}-${minSubmitted}-${Date.now()}`,
            opts.records,
            minSubmitted,
          );
          log(`run: ${mode}, window ${window}, min_submitted ${minSubmitted}, think ${thinkMs} ms`);
          const row = await run(owner, annotators, datasetId, mode, window, minSubmitted, thinkMs, store, server.pid);
          rows.push(row);
          log(
            `  ${row.answers} answers (${row.answersPerMinute}/min, useful ${row.usefulPerMinute}/min, server CPU ${row.serverCpuMsPerAnswer} ms/answer), beyond ${row.beyond} (${row.beyondPercent}%), max ${row.maxOnOneRecord} on one record, idle ${row.idleTakes}, errors ${row.errors}, take p50 ${row.take.p50} ms p95 ${row.take.p95} ms`,
          );
          for (const kind of row.errorKinds) log(`    failed: ${kind}`);
        }
      }
} finally {
  await server.stop();
}
console.log(
  `| store | queue | window | think ms | min_submitted | answers | answers/min | useful answers/min | beyond min_submitted | most on one record | records completed | idle takes | server CPU ms per answer | take p50 / p95 ms | submit p50 / p95 ms | errors |`,
);
console.log(`|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|`);
for (const r of rows) {
  console.log(
    `| ${r.store} | ${r.mode} | ${r.window} | ${r.thinkMs} | ${r.minSubmitted} | ${r.answers} | ${r.answersPerMinute} | ${r.usefulPerMinute} | ${r.beyond} (${r.beyondPercent}%) | ${r.maxOnOneRecord} | ${r.completed} / ${r.records} | ${r.idleTakes} | ${r.serverCpuMsPerAnswer} | ${r.take.p50} / ${r.take.p95} | ${r.submit.p50} / ${r.submit.p95} | ${r.errors} |`,
  );
}
if (args.json) writeFileSync(args.json, JSON.stringify({ options: opts, rows }, null, 2));
