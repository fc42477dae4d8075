import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "#port";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, "../../..");
/** The server bundle with the web app beside it (`apps/server` build, stage 30). */
export const SERVER_MAIN = join(REPO_ROOT, "apps/server/dist/main.js");

export interface BuiltServerOptions {
  dataDir: string;
  ownerPassword: string;
  /** Extra environment, applied last. */
  env?: Record<string, string>;
  /** Keep only the last this many characters of the server's output for the start-up error (default: all of it). */
  keepOutput?: number;
  /** Node options before the bundle (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** How long to wait for `/api/v1/settings` (default 30 s). */
  startTimeoutMs?: number;
}

export interface BuiltServer {
  url: string;
  pid: number;
  /** What the server printed so far (the last `keepOutput` characters). */
  output(): string;
  /** Sends `signal` and waits for the exit; does nothing when the process is already gone. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** Spawns the built server on a free loopback port and waits until `/api/v1/settings` answers (30 s at most unless `startTimeoutMs`). */
export async function startBuiltServer(options: BuiltServerOptions): Promise<BuiltServer> {
  if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} is missing: build the server first (pnpm turbo run build)`);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), SERVER_MAIN], {
    env: {
      ...process.env,
      TESSERA_PORT: String(port),
      TESSERA_HOST: "127.0.0.1",
      TESSERA_DATA_DIR: options.dataDir,
      TESSERA_OWNER_USERNAME: "owner",
      TESSERA_OWNER_PASSWORD: options.ownerPassword,
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = options.keepOutput ?? Infinity;
  const append = (d: unknown) => {
    output = output + String(d);
    if (output.length > keep) output = output.slice(-keep);
  };
  child.stdout.on("data", append);
  child.stderr.on("data", append);
  const server: BuiltServer = {
    url,
    pid: child.pid!,
    output: () => output,
    kill: async (signal) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill(signal);
      await exited;
    },
  };
  const deadline = Date.now() + (options.startTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`);
    try {
      if ((await fetch(`${url}/api/v1/settings`)).ok) return server;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      await server.kill("SIGKILL");
      throw new Error(`server did not start: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
