import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { startBuiltServer, type BuiltServer } from "@tessera/test-harness";

export { REPO_ROOT } from "@tessera/test-harness";
export const OWNER_PASSWORD = "security-owner-password";

/** The built server (apps/server/dist/main.js, stage 30) as a child process on loopback. */
export class ServerProcess {
  private process: BuiltServer | null = null;
  url = "";

  constructor(
    readonly dataDir: string,
    private readonly env: Record<string, string> = {},
  ) {}

  static fresh(env: Record<string, string> = {}): ServerProcess {
    return new ServerProcess(mkdtempSync(join(tmpdir(), "tessera-security-")), env);
  }

  async start(): Promise<void> {
    this.process = await startBuiltServer({
      dataDir: this.dataDir,
      ownerPassword: OWNER_PASSWORD,
      keepOutput: 20_000,
      env: { TESSERA_HUB_DATASETS_SERVER_URL: "http://127.0.0.1:9", TESSERA_LOG_LEVEL: "error", ...this.env },
    });
    this.url = this.process.url;
  }

  /** kill -9: no shutdown hook runs, nothing is flushed by the server. */
  async crash(): Promise<void> {
    await this.process?.kill("SIGKILL");
  }

  async stop(): Promise<void> {
    await this.process?.kill("SIGTERM");
  }

  remove(): void {
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** Opens the embedded database read-only (after the process is gone, or alongside it: WAL). */
  openDatabase(): SQLite.Database {
    return new SQLite(join(this.dataDir, findDatabaseFile(this.dataDir)), { readonly: true, fileMustExist: true });
  }
}

function findDatabaseFile(dataDir: string): string {
  for (const name of ["tessera.db", "tessera.sqlite", "db.sqlite", "data.db"]) if (existsSync(join(dataDir, name))) return name;
  throw new Error(`no database file in ${dataDir}`);
}

export type Headers = Record<string, string>;

/** A tiny JSON client with an API key or bearer headers. */
export async function api<T = unknown>(
  url: string,
  method: string,
  path: string,
  headers: Headers,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

export async function ownerHeaders(url: string): Promise<Headers> {
  const res = await fetch(`${url}/api/v1/token`, {
    method: "POST",
    body: new URLSearchParams({ username: "owner", password: OWNER_PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`owner login failed: ${res.status}`);
  const { access_token } = (await res.json()) as { access_token: string };
  // Keys are stored as digests and shown once: rotate the owner's to learn one.
  const me = await api<{ id: string }>(url, "GET", "/me", { authorization: `Bearer ${access_token}` });
  const rotated = await api<{ api_key: string }>(url, "POST", `/users/${me.body.id}/api-key`, { authorization: `Bearer ${access_token}` });
  return { "x-argilla-api-key": rotated.body.api_key };
}

export async function ok<T>(url: string, method: string, path: string, headers: Headers, body?: unknown): Promise<T> {
  const res = await api<T>(url, method, path, headers, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A published dataset in a new workspace: text field `text`, label question `label` (yes/no), and `n` annotators who are members. */
export async function annotationSetup(
  url: string,
  owner: Headers,
  annotators: number,
): Promise<{ datasetId: string; questionId: string; annotators: { id: string; headers: Headers }[] }> {
  const stamp = Date.now().toString(36);
  const ws = await ok<{ id: string }>(url, "POST", "/workspaces", owner, { name: `ws-${stamp}` });
  const ds = await ok<{ id: string }>(url, "POST", "/datasets", owner, {
    name: `ds-${stamp}`,
    workspace_id: ws.id,
    distribution: { strategy: "overlap", min_submitted: 1 },
  });
  await ok(url, "POST", `/datasets/${ds.id}/fields`, owner, { name: "text", title: "Text", settings: { type: "text" } });
  const q = await ok<{ id: string }>(url, "POST", `/datasets/${ds.id}/questions`, owner, {
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
  await ok(url, "PUT", `/datasets/${ds.id}/publish`, owner);
  const people: { id: string; headers: Headers }[] = [];
  for (let i = 0; i < annotators; i++) {
    const u = await ok<{ id: string; api_key: string }>(url, "POST", "/users", owner, {
      username: `annotator-${stamp}-${i}`,
      first_name: `A${i}`,
      password: "password-1234",
      role: "annotator",
    });
    await ok(url, "POST", `/workspaces/${ws.id}/users`, owner, { user_id: u.id });
    people.push({ id: u.id, headers: { "x-argilla-api-key": u.api_key } });
  }
  return { datasetId: ds.id, questionId: q.id, annotators: people };
}
