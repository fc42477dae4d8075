import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, "../../..");

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address();
      const port = typeof address === "object" && address ? address.port : 0;
      srv.close(() => res(port));
    });
    srv.on("error", rej);
  });
}

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
export function readCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
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
  /** Peak RSS seen by the sampler and the kernel's high-water mark, in bytes. */
  peakRss(): number;
  stop(): Promise<void>;
}

export interface ServerOptions { postgres?: string | undefined; cpuProfileDir?: string | undefined; keepData?: boolean; webDist?: string | undefined }

/** Starts apps/server/dist/main.js on loopback with a fresh data directory and samples its RSS every 250 ms. */
export async function startServer(options: ServerOptions = {}): Promise<BenchServer> {
  const main = join(REPO_ROOT, "apps/server/dist/main.js");
  try { statSync(main); } catch { throw new Error(`${main} is missing: build the server first (pnpm turbo run build)`); }
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-bench-"));
  const ownerPassword = "bench-owner-password";
  const nodeArgs = options.cpuProfileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`] : [];
  const env: NodeJS.ProcessEnv = {
    ...process.env, TESSERA_PORT: String(port), TESSERA_HOST: "127.0.0.1", TESSERA_DATA_DIR: dataDir,
    TESSERA_OWNER_PASSWORD: ownerPassword, TESSERA_LOG_LEVEL: "warn",
  };
  if (options.webDist) env.TESSERA_WEB_DIST = options.webDist;
  delete env.DATABASE_URL;
  delete env.TESSERA_DATABASE_URL;
  if (options.postgres) env.DATABASE_URL = options.postgres;
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, main], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d) => { output += String(d); });
  child.stderr?.on("data", (d) => { output += String(d); });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    try {
      if ((await fetch(`${url}/api/v1/settings`)).ok) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) { child.kill("SIGKILL"); throw new Error(`server did not start: ${output}`); }
    await new Promise((r) => setTimeout(r, 100));
  }
  const ownerApiKey = /API key:\s+(\S+)/.exec(output)?.[1];
  if (!ownerApiKey) { child.kill("SIGKILL"); throw new Error(`no owner API key in the server output: ${output}`); }
  const pid = child.pid!;
  let peak = 0;
  const sampler = setInterval(() => { peak = Math.max(peak, readRss(pid).rss); }, 250);
  sampler.unref();
  return {
    url, pid, dataDir, ownerPassword, ownerApiKey,
    peakRss: () => { const now = readRss(pid); peak = Math.max(peak, now.rss); return Math.max(peak, now.hwm); },
    stop: async () => {
      clearInterval(sampler);
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
        await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
        clearTimeout(killer);
      }
      if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
