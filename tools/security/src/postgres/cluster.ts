import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { startBuiltServer, type BuiltServer } from "@tessera/test-harness";
import { OWNER_PASSWORD } from "../harness.js";

/**
 * The PostgreSQL cluster of the PostgreSQL stage (tools/scripts/postgres.sh), for fault tests:
 * `TESSERA_TEST_DATABASE_URL` (a superuser's URL) and `TESSERA_PG_CTL` (its pg_ctl, as the user
 * that runs it, on its data directory).
 */
export function cluster(): { adminUrl: string; pgCtl: string } {
  const adminUrl = process.env.TESSERA_TEST_DATABASE_URL;
  const pgCtl = process.env.TESSERA_PG_CTL;
  if (!adminUrl || !pgCtl) {
    throw new Error(
      "The PostgreSQL fault tests need the cluster of the PostgreSQL stage: run them with `./tessera test postgres` (TESSERA_TEST_DATABASE_URL and TESSERA_PG_CTL are not set)",
    );
  }
  return { adminUrl, pgCtl };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function databaseUrl(name: string): string {
  const url = new URL(cluster().adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `work` on a fresh superuser connection, waiting (up to 30 s) for PostgreSQL to accept one. */
export async function admin<T>(work: (client: pg.Client) => Promise<T>, url = cluster().adminUrl): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => {}); // a fault test kills connections: this one's own loss shows in its query
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw error;
      await sleep(50);
      continue;
    }
    try {
      return await work(client);
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/** Resolves once PostgreSQL answers a query again (after a restart or a crash), with the time it did. */
export async function waitForPostgres(): Promise<number> {
  // A connection opened just before the postmaster resets every backend (after a kill -9) is itself
  // terminated: only a query that answers proves PostgreSQL is back, so a lost one is tried again.
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await admin(async (client) => {
        await client.query("select 1");
      });
      return Date.now();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(50);
    }
  }
}

export async function createDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `tessera_faults_${randomBytes(4).toString("hex")}`;
  await admin(async (client) => {
    await client.query(`create database ${name}`);
  });
  return {
    name,
    url: databaseUrl(name),
    drop: () =>
      admin(async (client) => {
        await client.query(`drop database if exists ${name} with (force)`);
      }),
  };
}

/** pg_terminate_backend on every connection to `database` (what a failover or an administrator does): the number killed. */
export async function terminateBackends(database: string): Promise<number> {
  return admin(async (client) => {
    const { rows } = await client.query<{ ok: boolean }>(
      "select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()",
      [database],
    );
    return rows.filter((r) => r.ok).length;
  });
}

/**
 * kill -9 of one backend serving `database` (a running query's if any): PostgreSQL then resets every
 * connection and recovers, as after a crash. Returns the pid.
 */
export async function killBackend(database: string): Promise<number> {
  const pid = await admin(async (client) => {
    const { rows } = await client.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend' order by (state = 'active') desc, backend_start limit 1",
      [database],
    );
    return rows[0]?.pid;
  });
  if (!pid) throw new Error(`no backend serves ${database}`);
  process.kill(pid, "SIGKILL");
  return pid;
}

/** `pg_ctl restart -m immediate`: every connection dropped, crash recovery at start; resolves once it accepts connections. */
export async function restartPostgres(): Promise<void> {
  await promisify(execFile)(cluster().pgCtl, ["restart", "-m", "immediate", "-w", "-t", "60"]);
}

/** `pg_ctl stop -m immediate` (a crash: nothing is flushed, crash recovery at the next start); resolves once it is down. */
export async function stopPostgres(): Promise<void> {
  await promisify(execFile)(cluster().pgCtl, ["stop", "-m", "immediate", "-w", "-t", "60"]);
}

/** `pg_ctl start` after stopPostgres (the configuration is in the cluster's postgresql.conf); resolves once it accepts connections. */
export async function startPostgres(): Promise<void> {
  await promisify(execFile)(cluster().pgCtl, ["start", "-w", "-t", "60"]);
}

/** The built server as a replica on `databaseUrl` (its own empty data directory). */
export async function startReplica(databaseUrl: string): Promise<BuiltServer & { stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), "tessera-pg-faults-"));
  const server = await startBuiltServer({
    dataDir,
    ownerPassword: OWNER_PASSWORD,
    keepOutput: 100_000,
    startTimeoutMs: 60_000,
    env: {
      DATABASE_URL: databaseUrl,
      TESSERA_AUTH_SECRET_KEY: "fault-tests-shared-secret-".padEnd(64, "x"),
      TESSERA_HUB_DATASETS_SERVER_URL: "http://127.0.0.1:9",
      TESSERA_LOG_LEVEL: "error",
      TESSERA_LOGIN_MAX_PER_ADDRESS: "1000",
    },
  });
  return {
    ...server,
    stop: async () => {
      await server.kill("SIGTERM");
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether the process is still running. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
