/**
 * Agreement and review benchmark (issue 22): the real built server on a fresh data directory, a
 * dataset of `--records` records answered by `--annotators` annotators (submitted responses to a
 * label, a rating and a multi-label question, ~70 % alike), then the wall time of the agreement
 * endpoint (whole dataset, one question, a metadata filter), the review list and the review
 * progress, with the server's CPU per call. Figures are cached per dataset answers version: the
 * first call measures a computation (a response is written before each run), the others the
 * answers from the cache after a warm-up. Timings are printed, never asserted.
 *
 *   pnpm --filter @tessera/bench run bench:agreement -- --records 100000 [--annotators 3] [--runs 5] [--json FILE]
 *     [--keep-data]        keep the seeded data directory (printed) to measure again without seeding
 *     [--data-dir DIR]     measure on a kept data directory (no seeding)
 *     [--profile DIR]      the server's CPU profile (.cpuprofile) of the run, and its top functions
 *     [--only TEXT]        only the calls whose name contains TEXT
 */
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { Api, createAnnotators, signInOwner } from "./api.ts";
import { readCpuMs, startServer } from "./server.ts";
import { topFunctions } from "./profile.ts";
import { summarize } from "./stats.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  options: {
    records: { type: "string", default: "100000" },
    annotators: { type: "string", default: "3" },
    runs: { type: "string", default: "5" },
    json: { type: "string" },
    "keep-data": { type: "boolean", default: false },
    "data-dir": { type: "string" },
    profile: { type: "string" },
    only: { type: "string" },
  },
});
const records = Number(args.records);
const annotatorCount = Number(args.annotators);
const runs = Number(args.runs);
const log = (msg: string) => process.stderr.write(`[agreement ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const LABELS = ["positive", "negative", "neutral"];
const TOPICS = ["sports", "politics", "science", "culture"];
const SOURCES = ["news", "blog", "forum"];

const server = await startServer({ keepData: args["keep-data"], dataDir: args["data-dir"], cpuProfileDir: args.profile });
const started = Date.now();
try {
  // a kept data directory: the owner signs in with the bench's password
  const owner = server.ownerApiKey ? new Api(server.url, server.ownerApiKey) : await signInOwner(server.url, server.ownerPassword);
  const id = args["data-dir"]
    ? (await owner.json<{ items: { id: string; name: string }[] }>("GET", "/me/datasets")).items.find((d) => d.name === "agreement-bench")!
        .id
    : await seed(owner);

  const filter = { filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "source" }, values: ["news"] }] } };
  // A response written before a call moves the dataset's answers version: the call computes afresh (cold), not from the cache.
  const someRecord = (await owner.json<{ items: { id: string }[] }>("GET", `/datasets/${id}/records?limit=1`)).items[0]!.id;
  let flips = 0;
  const newResponse = async () => {
    const label = LABELS[flips++ % LABELS.length]!;
    const items = [{ record_id: someRecord, status: "submitted", values: { sentiment: { value: label }, quality: { value: 3 } } }];
    await owner.json("POST", "/me/responses/bulk", { items });
  };
  const calls: { name: string; method: string; path: string; body?: unknown; before?: () => Promise<void> }[] = [
    {
      name: "agreement, whole dataset, after a new response (computed)",
      method: "POST",
      path: `/datasets/${id}/agreement`,
      body: {},
      before: newResponse,
    },
    { name: "agreement, whole dataset (3 questions)", method: "POST", path: `/datasets/${id}/agreement`, body: {} },
    { name: "agreement, one question", method: "GET", path: `/datasets/${id}/agreement?question=sentiment` },
    { name: "agreement, metadata filter (1/3 of the records)", method: "POST", path: `/datasets/${id}/agreement`, body: filter },
    { name: "review list, disagreements, first page", method: "POST", path: `/datasets/${id}/review/records?limit=1`, body: {} },
    { name: "review progress", method: "GET", path: `/datasets/${id}/review/progress` },
  ];
  const rows = [];
  for (const call of calls.filter((c) => !args.only || c.name.includes(args.only))) {
    await owner.json(call.method, call.path, call.body); // warm-up
    const samples: number[] = [];
    let cpu = 0;
    for (let i = 0; i < runs; i++) {
      await call.before?.();
      const cpuBefore = readCpuMs(server.pid);
      const t0 = performance.now();
      await owner.json(call.method, call.path, call.body);
      samples.push(performance.now() - t0);
      cpu += readCpuMs(server.pid) - cpuBefore;
    }
    const cpuPerCall = Math.round(cpu / runs);
    const s = summarize(samples, 0, 0);
    rows.push({ call: call.name, runs, p50Ms: s.p50, maxMs: s.max, serverCpuMsPerCall: cpuPerCall });
    log(`${call.name}: p50 ${s.p50} ms, max ${s.max} ms, server CPU ${cpuPerCall} ms/call`);
  }
  const sample = await owner.json<{ questions: { name: string; figures: Record<string, { value: number | null }> }[] }>(
    "POST",
    `/datasets/${id}/agreement`,
    {},
  );
  const machine = { cpus: cpus().length, load: loadavg().map((l) => Math.round(l * 100) / 100) };
  console.log(
    `\nAgreement bench: ${records} records x ${annotatorCount} submitted responses, ${machine.cpus} cores, load ${machine.load.join(" ")}\n`,
  );
  console.log("| call | runs | p50 ms | max ms | server CPU ms/call |\n|---|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.call} | ${r.runs} | ${r.p50Ms} | ${r.maxMs} | ${r.serverCpuMsPerCall} |`);
  console.log(
    `\nfigures: ${sample.questions
      .map(
        (q) =>
          `${q.name} ${Object.entries(q.figures)
            .map(([k, v]) => `${k}=${v.value?.toFixed(3)}`)
            .join(" ")}`,
      )
      .join("; ")}`,
  );
  if (args.json) writeFileSync(args.json, JSON.stringify({ records, annotators: annotatorCount, machine, rows }, null, 2));
} finally {
  await server.stop();
}
if (args.profile) {
  console.log("\nserver CPU profile, top functions (self time):");
  for (const f of topFunctions(args.profile, 25)) console.log(`${f.selfMs} ms ${f.percent}% ${f.fn}`);
}

/** Creates the dataset, imports the records and has every annotator submit a response to each; returns the dataset id. */
async function seed(owner: Api): Promise<string> {
  const ws = await owner.json<{ id: string }>("POST", "/workspaces", { name: "agreement-bench" });
  const ds = await owner.json<{ id: string }>("POST", "/datasets", {
    name: "agreement-bench",
    workspace_id: ws.id,
    distribution: { strategy: "overlap", min_submitted: annotatorCount },
  });
  const id = ds.id;
  await owner.json("POST", `/datasets/${id}/fields`, { name: "text", title: "Text", required: true, settings: { type: "text" } });
  await owner.json("POST", `/datasets/${id}/questions`, {
    name: "sentiment",
    title: "Sentiment",
    required: true,
    settings: { type: "label_selection", options: LABELS.map((value) => ({ value, text: value })) },
  });
  await owner.json("POST", `/datasets/${id}/questions`, {
    name: "quality",
    title: "Quality",
    required: false,
    settings: { type: "rating", options: [1, 2, 3, 4, 5].map((value) => ({ value })) },
  });
  await owner.json("POST", `/datasets/${id}/questions`, {
    name: "topics",
    title: "Topics",
    required: false,
    settings: { type: "multi_label_selection", options: TOPICS.map((value) => ({ value, text: value })) },
  });
  await owner.json("POST", `/datasets/${id}/metadata-properties`, {
    name: "source",
    title: "Source",
    settings: { type: "terms", values: SOURCES },
  });
  await owner.json("PUT", `/datasets/${id}/publish`);

  log(`importing ${records} records`);
  const ids: string[] = [];
  for (let from = 0; from < records; from += 500) {
    const items = Array.from({ length: Math.min(500, records - from) }, (_, k) => ({
      external_id: `r-${from + k}`,
      fields: { text: `Record ${from + k}: a short text to label.` },
      metadata: { source: SOURCES[(from + k) % 3] },
    }));
    const res = await owner.send("POST", `/datasets/${id}/records/bulk`, JSON.stringify({ items }));
    if (res.status !== 201) throw new Error(`records/bulk: ${res.status} ${res.bytes.toString().slice(0, 300)}`);
    ids.push(...(JSON.parse(res.bytes.toString()) as { items: { id: string }[] }).items.map((r) => r.id));
  }

  log(`${annotatorCount} annotators submit a response to every record`);
  const annotators = await createAnnotators(owner, ws.id, annotatorCount, "rater");
  await Promise.all(
    annotators.map(async (annotator, a) => {
      const random = rng(1000 + a);
      const truth = rng(7);
      for (let from = 0; from < ids.length; from += 100) {
        const items = ids.slice(from, from + 100).map((recordId) => {
          const t = truth();
          const agree = random() < 0.7;
          const label = agree ? LABELS[Math.floor(t * 3)]! : LABELS[Math.floor(random() * 3)]!;
          const rating = Math.max(1, Math.min(5, Math.round(t * 4) + 1 + (agree ? 0 : random() < 0.5 ? -1 : 1)));
          const topics = TOPICS.filter((_, i) => (agree ? (Math.floor(t * 16) >> i) & 1 : random() < 0.4));
          return {
            record_id: recordId,
            status: "submitted",
            values: { sentiment: { value: label }, quality: { value: rating }, ...(topics.length ? { topics: { value: topics } } : {}) },
          };
        });
        const res = await annotator.api.send("POST", "/me/responses/bulk", JSON.stringify({ items }));
        if (res.status !== 200) throw new Error(`responses/bulk: ${res.status} ${res.bytes.toString().slice(0, 300)}`);
      }
    }),
  );
  log(`seeded in ${Math.round((Date.now() - started) / 1000)} s${args["keep-data"] ? `, data kept in ${server.dataDir}` : ""}`);
  return id;
}
