import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT, startBuiltServer } from "@tessera/test-harness";

export { REPO_ROOT };

/** Resident set size of a process in bytes, from /proc (0 once it is gone). */
export function readRss(pid: number): { rss: number; hwm: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
    return { rss: kb("VmRSS"), hwm: kb("VmHWM") };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** CPU time (user + system) a process has used so far, in milliseconds (clock ticks of 10 ms). */
export function readCpuMs(pid: number, thread?: number): number {
  try {
    // /proc/<pid>/task/<tid>/stat: one thread (the main thread's tid is the pid); /proc/<pid>/stat: all.
    const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** CPU time (user + system, ms) of each of a process's threads so far, by thread id, with its name (`comm`). */
export function readThreadsCpuMs(pid: number): Map<number, { name: string; ms: number }> {
  const out = new Map<number, { name: string; ms: number }>();
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      out.set(Number(tid), { name, ms: readCpuMs(pid, Number(tid)) });
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

/** The threads that used CPU between two readThreadsCpuMs snapshots, busiest first. */
export function threadsCpuBetween(
  before: Map<number, { name: string; ms: number }>,
  after: Map<number, { name: string; ms: number }>,
): Array<{ tid: number; name: string; ms: number }> {
  return [...after]
    .map(([tid, t]) => ({ tid, name: t.name, ms: t.ms - (before.get(tid)?.ms ?? 0) }))
    .filter((t) => t.ms > 0)
    .sort((a, b) => b.ms - a.ms);
}

/**
 * A private copy of the built web app, so that a rebuild of apps/web/dist during a long run (other
 * people work in the same checkout) cannot break the browser part or change the measured bundle.
 */
export function snapshotWebDist(): string | undefined {
  const dist = join(REPO_ROOT, "apps/web/dist");
  if (!existsSync(join(dist, "index.html"))) return undefined;
  const copy = mkdtempSync(join(tmpdir(), "tessera-bench-web-"));
  cpSync(dist, copy, { recursive: true });
  return copy;
}

export function directorySize(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const full = join(path, entry.name);
    if (entry.isDirectory()) total += directorySize(full);
    else if (entry.isFile()) total += statSync(full).size;
  }
  return total;
}

export interface BenchServer {
  url: string;
  pid: number;
  dataDir: string;
  ownerPassword: string;
  ownerApiKey: string;
  /** Peak RSS of the whole process (all threads) since the start, in bytes: the sampler's and the kernel's high-water marks. */
  peakRss(): number;
  /** Starts a new phase: the kernel's high-water mark is reset (`/proc/<pid>/clear_refs`) and `phasePeakRss` starts again from now. */
  resetPhasePeak(): void;
  /** Peak RSS since the last `resetPhasePeak` (or the start), in bytes. */
  phasePeakRss(): number;
  stop(): Promise<void>;
}

export interface ServerOptions {
  postgres?: string | undefined;
  cpuProfileDir?: string | undefined;
  keepData?: boolean;
  webDist?: string | undefined;
  /** An existing data directory (kept): the owner exists already, so `ownerApiKey` is empty (sign in with the password). */
  dataDir?: string | undefined;
  /** Another replica against a database another server set up: no owner API key is printed (`ownerApiKey` empty). */
  replica?: boolean;
}

/** Starts apps/server/dist/main.js on loopback with a fresh data directory and samples its RSS every 250 ms. */
export async function startServer(options: ServerOptions = {}): Promise<BenchServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "tessera-bench-"));
  const ownerPassword = "bench-owner-password";
  // Empty DATABASE_URL / TESSERA_DATABASE_URL keep the embedded store even when the caller's shell sets them.
  const env: Record<string, string> = { TESSERA_LOG_LEVEL: "warn", DATABASE_URL: options.postgres ?? "", TESSERA_DATABASE_URL: "" };
  if (options.webDist) env.TESSERA_WEB_DIST = options.webDist;
  const child = await startBuiltServer({
    dataDir,
    ownerPassword,
    env,
    // PostgreSQL: a start may migrate a large database first (0025 at 1M records: ~80 s). A kept 1M
    // directory on a loaded machine (load average 14) took over 60 s to answer its first call.
    startTimeoutMs: options.postgres ? 30 * 60_000 : 5 * 60_000,
    nodeArgs: [
      ...(options.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`] : []),
      ...(process.env.TESSERA_BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean),
    ],
  });
  const ownerApiKey = /API key:\s+(\S+)/.exec(child.output())?.[1] ?? (options.dataDir || options.replica ? "" : undefined);
  if (ownerApiKey === undefined) {
    await child.kill("SIGKILL");
    throw new Error(`no owner API key in the server output: ${child.output()}`);
  }
  const pid = child.pid;
  let peak = 0;
  let phasePeak = 0;
  const sample = () => {
    const now = readRss(pid);
    phasePeak = Math.max(phasePeak, now.rss, now.hwm);
    peak = Math.max(peak, phasePeak);
    return phasePeak;
  };
  const sampler = setInterval(sample, 250);
  sampler.unref();
  return {
    url: child.url,
    pid,
    dataDir,
    ownerPassword,
    ownerApiKey,
    peakRss: () => {
      sample();
      return peak;
    },
    resetPhasePeak: () => {
      sample();
      try {
        // 5: reset the peak resident set size ("VmHWM") to the current one (proc(5), clear_refs).
        writeFileSync(`/proc/${pid}/clear_refs`, "5");
      } catch {
        /* not Linux, or not allowed: the sampler's figure alone */
      }
      phasePeak = readRss(pid).rss;
    },
    phasePeakRss: () => sample(),
    stop: async () => {
      clearInterval(sampler);
      const killer = setTimeout(() => {
        void child.kill("SIGKILL");
      }, 30_000);
      await child.kill("SIGTERM");
      clearTimeout(killer);
      if (!options.keepData && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
