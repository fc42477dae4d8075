/**
 * Tessera benchmark: one command, the real built server on a temporary data directory.
 *
 *   pnpm --filter @tessera/bench bench -- --records 100000 [--postgres URL] [--json out.json]
 *
 * See tools/bench/README.md for every option and docs/performance.md for the results.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  Api,
  createAnnotators,
  createDataset,
  importRecords,
  keptDataset,
  listRecordIds,
  pendingRecordIds,
  signInOwner,
  type ImportResult,
} from "./api.ts";
import { measureReadiness, type Readiness, similarityIndexOff } from "./readiness.ts";
import { DatasetGenerator } from "./data.ts";
import { RecordPool, runLoad, scenarios, warmupCalls } from "./latency.ts";
import { FILTER_PROBES, filterScenarios } from "./filter-probes.ts";
import { PROBES_GROUP, probeScenarios } from "./probes.ts";
import { TEAM_MIX, TEAM_MIX_NAME, TEAM_MIX_SUBMIT_SHARE, teamMix } from "./team-mix.ts";
import { giveAnswers } from "./answered.ts";
import { keptRecordIds, keptRecordIdsPostgres } from "./kept-records.ts";
import { measureRecall } from "./recall.ts";
import { rankedAhead, similarityIndexesReady } from "./ranked-ahead.ts";
import { topFunctions } from "./profile.ts";
import { renderMarkdown, type BenchReport, type LatencyRow } from "./report.ts";
import { sdkImport, type SdkResult } from "./sdk.ts";
import { waitUntilSettled } from "./settle.ts";
import {
  directorySize,
  readCpuMs,
  readRss,
  readThreadsCpuMs,
  REPO_ROOT,
  snapshotWebDist,
  startServer,
  threadsCpuBetween,
} from "./server.ts";
import { bundleSizes, measureBrowser, type BrowserOutcome } from "./web.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  options: {
    records: { type: "string", default: "10000" },
    batch: { type: "string", default: "256" },
    postgres: { type: "string" },
    json: { type: "string" },
    markdown: { type: "string" },
    concurrency: { type: "string", default: "1,20" },
    requests: { type: "string", default: "200" },
    "max-seconds": { type: "string", default: "60" },
    warmup: { type: "string", default: "5" },
    "sdk-records": { type: "string", default: "10000" },
    "browser-records": { type: "string", default: "500" },
    "browser-warmup": { type: "string", default: "600" },
    "browser-loads": { type: "string", default: "3" },
    "recall-samples": { type: "string", default: "20" },
    profile: { type: "string" },
    smoke: { type: "boolean", default: false },
    strict: { type: "boolean", default: false },
    "keep-data": { type: "boolean", default: false },
    "data-dir": { type: "string" },
    settle: { type: "boolean", default: false },
    "live-bodies": { type: "boolean", default: false },
    "bodies-dir": { type: "string" },
    only: { type: "string" },
    "settle-seconds": { type: "string", default: "10" },
    replicas: { type: "string", default: "1" },
    "think-ms": { type: "string", default: "0" },
    "mix-requests": { type: "string" },
    "mix-seconds": { type: "string", default: "60" },
    answered: { type: "string", default: "0" },
    "answered-spread": { type: "string", default: "0" },
    help: { type: "boolean", default: false },
  },
});
if (args.help) {
  console.log(
    "usage: bench [--records N] [--batch 256] [--postgres URL] [--json FILE] [--markdown FILE] [--concurrency 1,20] [--requests N] [--max-seconds S] [--sdk-records N] [--browser-records N] [--browser-warmup N] [--browser-loads N] [--recall-samples N] [--profile DIR] [--smoke] [--strict] [--keep-data] [--data-dir DIR] [--live-bodies] [--bodies-dir DIR] [--settle] [--only SCENARIO-SUBSTRING] [--settle-seconds S] [--replicas N (with --postgres)] [--think-ms MS] [--answered N] [--answered-spread T] [--mix-requests N] [--mix-seconds S]",
  );
  process.exit(0);
}
const int = (v: string | undefined, name: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
};
const smoke = args.smoke;
const opts = {
  records: smoke ? 1000 : int(args.records, "records"),
  batch: int(args.batch, "batch"),
  concurrency: (smoke ? "1,4" : args.concurrency!)
    .split(",")
    .map((c) => int(c, "concurrency"))
    .filter((c) => c > 0),
  requests: smoke ? 10 : int(args.requests, "requests"),
  maxSeconds: smoke ? 20 : int(args["max-seconds"], "max-seconds"),
  warmup: smoke ? 1 : int(args.warmup, "warmup"),
  sdkRecords: smoke ? 50 : int(args["sdk-records"], "sdk-records"),
  browserRecords: smoke ? 3 : int(args["browser-records"], "browser-records"),
  recallSamples: smoke ? 3 : int(args["recall-samples"], "recall-samples"),
  answered: smoke ? 0 : int(args.answered, "answered"),
  answeredSpread: int(args["answered-spread"], "answered-spread"),
  browserWarmup: smoke ? 1 : int(args["browser-warmup"], "browser-warmup"),
  browserLoads: smoke ? 1 : int(args["browser-loads"], "browser-loads"),
  settleSeconds: smoke ? 0 : int(args["settle-seconds"], "settle-seconds"),
  replicas: Math.max(1, int(args.replicas, "replicas")),
  thinkMs: smoke ? 0 : int(args["think-ms"], "think-ms"),
  // The team mix's calls: its rarest calls (1-2%) need ~1,000 calls or more for a p95 of their own.
  mixRequests: smoke
    ? 20
    : args["mix-requests"] !== undefined
      ? int(args["mix-requests"], "mix-requests")
      : 10 * int(args.requests, "requests"),
  mixSeconds: smoke ? 20 : int(args["mix-seconds"], "mix-seconds"),
};
if (opts.replicas > 1 && !args.postgres) throw new Error("--replicas needs --postgres (replicas share one database)");
const strict = args.strict || smoke;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const profileDir = args.profile ? (args.profile === "tmp" ? mkdtempSync(join(tmpdir(), "tessera-bench-prof-")) : args.profile) : undefined;
const machine = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? "?",
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  loadBefore: loadavg().map((l) => Math.round(l * 100) / 100),
};
log(`machine: ${machine.cpus} cores (${machine.cpuModel}), load ${machine.loadBefore.join(" ")}`);
const webDist = snapshotWebDist();
const server = await startServer({
  postgres: args.postgres,
  cpuProfileDir: profileDir,
  keepData: args["keep-data"],
  dataDir: args["data-dir"],
  webDist,
});
// More replicas of the server against the same PostgreSQL database (each its own data directory): the
// latency clients are spread over them in turn; the server CPU figures add up every replica's.
const replicas = [server];
for (let i = 1; i < opts.replicas; i++) replicas.push(await startServer({ postgres: args.postgres, webDist, replica: true }));
const serversCpuMs = () => replicas.reduce((sum, r) => sum + readCpuMs(r.pid), 0);
const requestThreadsCpuMs = () => replicas.reduce((sum, r) => sum + readCpuMs(r.pid, r.pid), 0);
const problems: string[] = [];
let report: BenchReport | undefined;
try {
  const idleRss = readRss(server.pid).rss;
  log(`server ${server.url} (pid ${server.pid}), data in ${server.dataDir}`);
  // A kept data directory's owner exists already: it signs in with the bench's password.
  const owner = args["data-dir"] ? await signInOwner(server.url, server.ownerPassword) : new Api(server.url, server.ownerApiKey);
  const gen = new DatasetGenerator();
  const kept = args["data-dir"] ? await keptDataset(owner, "bench") : null;
  const ds = kept ?? (await createDataset(owner, "bench"));

  if (!kept) log(`importing ${opts.records} records in batches of ${opts.batch}`);
  else
    log(
      `kept data directory: dataset ${ds.datasetId}, no import (the submit rows are skipped; the team mix submits records from the queue's head)`,
    );
  let lastLog = 0;
  server.resetPhasePeak();
  const importCpu0 = readCpuMs(server.pid);
  const importThreadCpu0 = readCpuMs(server.pid, server.pid);
  const importThreads0 = readThreadsCpuMs(server.pid);
  if (!args["live-bodies"]) log("building the request bodies first (--live-bodies to build them during the import)");
  const imported: ImportResult = kept
    ? { records: 0, seconds: 0, clientCpuMs: 0, recordsPerSecond: 0, batchP50Ms: 0, batchP95Ms: 0, recordIds: [], bodies: "prebuilt" }
    : await importRecords(owner, ds, gen, opts.records, opts.batch, {
        prebuilt: !args["live-bodies"],
        tmpDir: args["bodies-dir"],
        onProgress: (done) => {
          if (performance.now() - lastLog > 10_000) {
            lastLog = performance.now();
            log(`  ${done} records`);
          }
        },
      });
  const importEnded = performance.now();
  if (imported.prebuildSeconds !== undefined) log(`bodies built in ${imported.prebuildSeconds} s`);
  const importCpuMs = readCpuMs(server.pid) - importCpu0;
  const importThreadCpuMs = readCpuMs(server.pid, server.pid) - importThreadCpu0;
  const importThreads = threadsCpuBetween(importThreads0, readThreadsCpuMs(server.pid)).slice(0, 6);
  const benchCpuMs = imported.clientCpuMs;
  log(
    `import: ${imported.recordsPerSecond} records/s, server CPU ${importCpuMs} ms (request thread ${importThreadCpuMs} ms), bench CPU ${benchCpuMs} ms`,
  );
  log(
    `  server threads during the import (µs per record): ${importThreads.map((t) => `${t.tid === server.pid ? "request" : t.name}#${t.tid} ${Math.round((t.ms * 1000) / imported.records)}`).join(", ")}`,
  );
  // Search on the imported records, from the last batch: the first text search, the similarity index (embedded store).
  let readiness: Readiness | undefined;
  if (!kept && imported.records > 0) {
    readiness = await measureReadiness(owner, ds.datasetId, gen.wordAt(2000), importEnded, !args.postgres && opts.records > 50_000);
    log(
      `after the last batch: first text search ${readiness.textSearchMs} ms (answered at ${readiness.textSeconds} s)${readiness.similarityIndexSeconds !== undefined ? `, similarity index (most similar) ready at ${readiness.similarityIndexSeconds} s` : ""}${readiness.farSideSeconds !== undefined ? `, with least similar's far side at ${readiness.farSideSeconds} s` : ""}${readiness.settledSeconds !== undefined ? `, no search work left (every record indexed, the similarity index over every vector) at ${readiness.settledSeconds} s` : ""}`,
    );
  }
  // PostgreSQL: a most-similar search at once (the server's IVFFlat index is not built yet: it scans a bounded share of
  // the vectors, what a user waits meanwhile), then when the index is ready (built once the writes pause).
  if (!kept && args.postgres && imported.records >= 10_000) {
    const recordId = (await owner.json<{ items: { id: string }[] }>("GET", `/datasets/${ds.datasetId}/records?limit=1`)).items[0]!.id;
    const waits: number[] = [];
    for (const order of ["most_similar", "least_similar"]) {
      const asked = performance.now();
      const res = await owner.raw("POST", `/me/datasets/${ds.datasetId}/records/search?limit=50`, {
        query: { vector: { name: "embedding", record_id: recordId, order } },
      });
      if (!res.ok) throw new Error(`similarity search after the import: ${res.status} ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer();
      waits.push(Math.round(performance.now() - asked));
    }
    const ready = await similarityIndexesReady(args.postgres, performance.now() + 60 * 60_000);
    log(
      `after the last batch: most / least similar before the index ${waits.join(" / ")} ms; similarity (IVFFlat) index ${ready ? `ready at ${Math.round((performance.now() - importEnded) / 100) / 10} s` : "not ready after 60 minutes"}`,
    );
  }
  // The text indexer's last chunk and the warm-up run once the writes stop: part of the import's peak.
  const settleLeft = importEnded + opts.settleSeconds * 1000 - performance.now();
  if (!kept && settleLeft > 0) await new Promise((resolve) => setTimeout(resolve, settleLeft));
  const importPeakRss = server.phasePeakRss();
  const dataDirAfterImport = directorySize(server.dataDir);
  const rssAfterImport = readRss(server.pid).rss;
  log(`server RSS: idle ${mib(idleRss)}, import peak ${mib(importPeakRss)}, after the import ${mib(rssAfterImport)}`);

  if (args.settle) {
    // The server's background work after the import or start (warm-up, frequent words ranked ahead) ends
    // first: less than 5% of a core over 10 s, at most 20 minutes.
    // With --profile the profiler's own CPU is left out (settle.ts), else it never settled.
    const started = performance.now();
    const { settled } = await waitUntilSettled(server.pid);
    if (!settled) log("not settled after 20 minutes (--settle)");
    // PostgreSQL ranks the frequent words ahead in the database (server CPU does not show it): until every dataset is ranked at its text version.
    // And the similarity (IVFFlat) indexes, built once the vectors' writes pause (~1-5 minutes at 1M: 60 minutes at most).
    if (args.postgres) await rankedAhead(args.postgres, started + 60 * 60_000);
    log(`settled after ${Math.round((performance.now() - started) / 1000)} s (--settle)`);
  }

  // Before any submit: the fresh annotator's queue filters keep every record, as the exact answer does.
  // The embedded store builds the similarity index in the background once the vectors settle
  // (search/sqlite-knn.ts): the recall and the latency runs measure it, not the scan before it. After an
  // import the readiness measure above has waited for it already (and logged when it was ready).
  // Not when the server runs with the index switched off (TESSERA_SEARCH_OFF=similarity-index, passed on to it: never built).
  if (
    !args.postgres &&
    !similarityIndexOff(process.env) &&
    (kept || opts.records > 50_000) &&
    readiness?.similarityIndexSeconds === undefined
  ) {
    const started = performance.now();
    while (!((await owner.serverMemory())?.search?.similarity_index ?? 0) && performance.now() - started < 10 * 60_000)
      await new Promise((r) => setTimeout(r, 1000));
    log(
      `similarity index ready ${Math.round((performance.now() - started) / 1000)} s after ${kept ? "the settle wait" : "the import and the settle wait"}`,
    );
  }

  // On a kept data directory the record ids by generator index are read from its file (embedded store) or its database.
  let recall: BenchReport["recall"] = { skipped: "--recall-samples 0" };
  let recallLeast: BenchReport["recallLeast"] = { skipped: "--recall-samples 0" };
  if (opts.recallSamples > 0) {
    try {
      const recordIds = !kept
        ? imported.recordIds
        : args.postgres
          ? await keptRecordIdsPostgres(args.postgres, ds.datasetId)
          : keptRecordIds(server.dataDir, ds.datasetId);
      const annotator = (await createAnnotators(owner, ds.workspaceId, 1, `${kept ? `r${Date.now().toString(36)}-` : ""}recall`))[0]!;
      for (const order of ["most_similar", "least_similar"] as const) {
        log(`similarity recall@50 (${order}) over ${opts.recallSamples} records`);
        const result = await measureRecall(annotator, ds, gen, recordIds, opts.recallSamples, 50, order);
        log(`recall@50 (${order}) mean ${result.mean}, min ${result.min}`);
        if (order === "most_similar") recall = result;
        else recallLeast = result;
      }
    } catch (error) {
      const skipped = error instanceof Error ? error.message.slice(0, 200) : String(error);
      if ("skipped" in recall) recall = { skipped };
      recallLeast = { skipped };
      problems.push(`similarity recall: ${skipped}`);
    }
  }

  // On a kept data directory the annotators of earlier runs exist: this run's get names of their own.
  const run = kept ? `r${Date.now().toString(36)}-` : "";
  const clients = (await createAnnotators(owner, ds.workspaceId, Math.max(...opts.concurrency, 1), `${run}annotator`)).map((c, i) =>
    i % replicas.length === 0 ? c : { ...c, api: new Api(replicas[i % replicas.length]!.url, c.apiKey) },
  );
  if (replicas.length > 1) log(`${replicas.length} replicas: ${replicas.map((r) => r.url).join(", ")}`);
  if (opts.answered > 0) {
    // Every latency client answers --answered records (the Submitted view's rows measure such an annotator).
    // As a team of --answered-spread annotators (default: the clients) sharing a queue: client c's records c, c + T, ...
    const team = opts.answeredSpread > 0 ? opts.answeredSpread : clients.length;
    const total = opts.answered * Math.max(team, clients.length);
    const recordIds = !kept
      ? imported.recordIds
      : !args.postgres
        ? keptRecordIds(server.dataDir, ds.datasetId)
        : await listRecordIds(owner, ds.datasetId, Math.min(total, 1_000_000));
    log(`--answered: ${opts.answered} submitted responses for each of ${clients.length} clients, spread as a team of ${team}`);
    let lastAnswerLog = 0;
    const given = await giveAnswers(clients, recordIds, opts.answered, team, (done) => {
      if (performance.now() - lastAnswerLog > 10_000) {
        lastAnswerLog = performance.now();
        log(`  ${done} responses`);
      }
    });
    log(`--answered: ${given.responses} responses in ${given.seconds} s`);
  }
  const browserUser = (await createAnnotators(owner, ds.workspaceId, 1, `${run}browser`))[0]!;
  // Submits take records from the head of the queue; keep enough pending records for the browser part.
  const reserve = opts.browserWarmup + opts.browserRecords + 50;
  // The team mix's submits per level (its pattern repeats every 100 calls: one period of slack).
  const mixWanted = args.only === undefined || TEAM_MIX_NAME.includes(args.only);
  const mixRecords = (c: number) =>
    mixWanted ? Math.ceil(TEAM_MIX_SUBMIT_SHARE * (opts.mixRequests + warmupCalls({ concurrency: c, warmup: opts.warmup }) + 100)) : 0;
  // A kept data directory imports nothing: the mix's annotators submit records from the head of the queue (the single-call
  // submit rows stay skipped there), and the next run's queue starts after them.
  const ids = kept
    ? await pendingRecordIds(browserUser.api, ds.datasetId, opts.concurrency.reduce((s, c) => s + mixRecords(c), 0) + reserve)
    : imported.recordIds;
  const pool = new RecordPool(ids.slice(0, Math.max(0, ids.length - reserve)));
  const perLevel = Math.floor(pool.remaining / Math.max(1, opts.concurrency.length));
  // On a kept data directory the similarity queries start from records read back (the first 500: the vectors are clustered throughout).
  const sampleIds = kept
    ? (await owner.json<{ items: { id: string }[] }>("GET", `/datasets/${ds.datasetId}/records?limit=500`)).items.map((r) => r.id)
    : ids;
  // The annotation page's filters and sorts (filter-probes.ts): only when asked for (`--only filters`).
  // The calls nobody measured before (probes.ts): only when asked for (`--only probes`).
  const all = [
    ...scenarios(ds, gen, pool, sampleIds),
    ...(args.only?.includes(FILTER_PROBES) ? filterScenarios(ds, gen, owner) : []),
    ...(args.only?.includes(PROBES_GROUP) ? probeScenarios(ds, gen, owner, sampleIds) : []),
  ];
  // The team at work: the last row of each level, each of its calls also reported on a row of its own.
  const mixRows = TEAM_MIX.map(([name, weight]) => `${TEAM_MIX_NAME.split(" (")[0]}: ${name} (${weight}%)`);
  const latency: LatencyRow[] = [...all.map((s) => s.name), TEAM_MIX_NAME, ...mixRows].map((name) => ({ name, levels: {} }));
  const latencyPeakRss: Record<number, number> = {};
  for (const c of opts.concurrency) {
    server.resetPhasePeak();
    const mix = teamMix(all);
    for (const [k, scenario] of [...all, mix.scenario].entries()) {
      const isMix = scenario === mix.scenario;
      let requests = isMix ? opts.mixRequests : opts.requests;
      if (args.only !== undefined && !scenario.name.includes(args.only)) {
        latency[k]!.levels[c] = { skipped: `--only ${args.only}` };
        continue;
      }
      if (scenario.recordsPerRequest > 0) {
        // submit and bulk submit share this level's budget of unanswered records (1 + 10 per request pair)
        requests = Math.min(requests, Math.floor((perLevel - mixRecords(c)) / 11) - warmupCalls({ concurrency: c, warmup: opts.warmup }));
        if (requests <= 0) {
          latency[k]!.levels[c] = { skipped: "not enough records" };
          continue;
        }
      }
      log(`${scenario.name} x${requests} at concurrency ${c}`);
      const cpu0 = serversCpuMs();
      const requestThreadCpu0 = requestThreadsCpuMs();
      let loaded: Awaited<ReturnType<typeof runLoad>>;
      try {
        loaded = await runLoad(scenario, clients.slice(0, c), {
          concurrency: c,
          requests,
          maxSeconds: isMix ? opts.mixSeconds : opts.maxSeconds,
          warmup: opts.warmup,
          thinkMs: opts.thinkMs,
        });
      } catch (error) {
        // A failing warm-up call: the call is not measurable on this server (e.g. PostgreSQL without pgvector).
        const reason = error instanceof Error ? error.message.slice(0, 200) : String(error);
        problems.push(`${scenario.name} @${c}: ${reason}`);
        latency[k]!.levels[c] = { skipped: reason };
        continue;
      }
      // Server CPU per request (warm-up included in the divisor): a figure far less sensitive to the machine's load than wall time.
      // The request thread's share: what every other call waits behind (the rest runs on the server's other threads).
      const calls = Math.max(1, loaded.count + loaded.errors + warmupCalls({ concurrency: c, warmup: opts.warmup }));
      const result = {
        ...loaded,
        serverCpuMsPerRequest: Math.round(((serversCpuMs() - cpu0) / calls) * 10) / 10,
        requestThreadCpuMsPerRequest: Math.round(((requestThreadsCpuMs() - requestThreadCpu0) / calls) * 10) / 10,
      };
      if (result.errors > 0) problems.push(`${scenario.name} @${c}: ${result.errors} errors, first: ${result.firstError}`);
      latency[k]!.levels[c] = result;
      if (isMix) {
        const byCall = mix.byCall(loaded.throughput > 0 ? (loaded.count / loaded.throughput) * 1000 : 0);
        for (const [j, [name]] of TEAM_MIX.entries()) latency[all.length + 1 + j]!.levels[c] = byCall.get(name)!;
      }
    }
    if (!mixWanted) for (const j of TEAM_MIX.keys()) latency[all.length + 1 + j]!.levels[c] = { skipped: `--only ${args.only}` };
    latencyPeakRss[c] = server.phasePeakRss();
    log(`server RSS peak at ${c} clients: ${mib(latencyPeakRss[c])}`);
  }
  const rssAfterLatency = readRss(server.pid).rss;
  const serverMemory = await owner.serverMemory();

  let sdk: SdkResult = { skipped: "--sdk-records 0" };
  if (opts.sdkRecords > 0) {
    log(`official Python SDK: records.log of ${opts.sdkRecords} records`);
    sdk = await sdkImport(owner, gen, opts.sdkRecords, opts.records);
    if ("skipped" in sdk) {
      log(`SDK: ${sdk.skipped}`);
      if (sdk.skipped.startsWith("the SDK run failed")) problems.push(`SDK: ${sdk.skipped}`);
    } else log(`SDK: ${sdk.recordsPerSecond} records/s`);
  }

  const bundle = webDist ? bundleSizes(webDist) : bundleSizes();
  let browser: BrowserOutcome = { skipped: "not measured: --browser-records 0" };
  if (opts.browserRecords > 0) {
    log(`Chromium: annotating ${opts.browserWarmup} + ${opts.browserRecords} records`);
    mkdirSync(join(REPO_ROOT, "test-artifacts"), { recursive: true });
    browser = await measureBrowser({
      url: server.url,
      datasetId: ds.datasetId,
      username: browserUser.username,
      password: browserUser.password,
      records: opts.browserRecords,
      warmup: opts.browserWarmup,
      loads: opts.browserLoads,
      failureScreenshot: join(REPO_ROOT, "test-artifacts", "bench-browser-failure.png"),
    });
    if ("skipped" in browser) log(browser.skipped);
  }

  report = {
    date: new Date().toISOString(),
    machine: { ...machine, loadAfter: loadavg().map((l) => Math.round(l * 100) / 100) },
    store: args.postgres ? "postgres" : "sqlite (embedded)",
    options: opts,
    import: {
      records: imported.records,
      batchSize: opts.batch,
      seconds: imported.seconds,
      recordsPerSecond: imported.recordsPerSecond,
      batchP50Ms: imported.batchP50Ms,
      batchP95Ms: imported.batchP95Ms,
      bodies: imported.bodies,
      serverCpuMs: importCpuMs,
      requestThreadCpuMs: importThreadCpuMs,
      benchCpuMs,
      recordsPerServerCpuSecond: importCpuMs > 0 ? Math.round((imported.records / importCpuMs) * 1000) : 0,
      readiness,
    },
    sdk,
    recall,
    recallLeast,
    latency,
    memory: {
      idleRssBytes: idleRss,
      afterImportRssBytes: rssAfterImport,
      afterLatencyRssBytes: rssAfterLatency,
      peakRssBytes: server.peakRss(),
      importPeakRssBytes: importPeakRss,
      latencyPeakRssBytes: latencyPeakRss,
      server: serverMemory,
    },
    disk: { dataDirAfterImportBytes: dataDirAfterImport, dataDirFinalBytes: directorySize(server.dataDir) },
    bundle,
    browser,
    problems,
  };
} finally {
  if (report) report.memory.peakRssBytes = server.peakRss();
  for (const replica of replicas) await replica.stop();
  if (webDist) rmSync(webDist, { recursive: true, force: true });
}
if (profileDir && report) {
  report.profile = { dir: profileDir, top: topFunctions(profileDir) };
}
const markdown = renderMarkdown(report!);
process.stdout.write(markdown + "\n");
if (args.json) writeFileSync(args.json, JSON.stringify(report, null, 2) + "\n");
if (args.markdown) writeFileSync(args.markdown, markdown + "\n");
if (strict && problems.length > 0) {
  log(`FAILED (--strict): ${problems.join("; ")}`);
  process.exit(1);
}
