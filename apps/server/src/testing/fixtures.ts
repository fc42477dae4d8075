import { randomUUID } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { startTestServer, type TestServer } from "./test-server.js";

/**
 * Test helpers over the real HTTP API (others reuse them): users, workspaces, datasets and settings,
 * created as the owner unless told otherwise.
 */
export type Headers = Record<string, string>;
export type Json = Record<string, unknown>;
export interface ApiResponse<T = Json> {
  status: number;
  body: T;
}

export interface Actor {
  id: string;
  username: string;
  password: string;
  role: "owner" | "admin" | "annotator";
  apiKey: string;
  /** `X-Argilla-Api-Key` headers (no argon2 login round trip). */
  headers: Headers;
}

let counter = 0;
/** A short unique name (safe for question/metadata name regexes). */
export const uniqueName = (prefix = "n"): string =>
  `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}-${randomUUID().slice(0, 4)}`;

export class Fixtures {
  constructor(private readonly serverOrGetter: TestServer | (() => TestServer)) {}

  get server(): TestServer {
    return typeof this.serverOrGetter === "function" ? this.serverOrGetter() : this.serverOrGetter;
  }

  get owner(): Headers {
    return this.server.ownerHeaders;
  }

  /** Sends a request; `body` objects go as JSON, strings are sent raw with a JSON content type. */
  async request<T = Json>(
    method: string,
    path: string,
    options: { headers?: Headers | null; body?: unknown } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Headers = { ...(options.headers === undefined ? this.owner : (options.headers ?? {})) };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers["content-type"] = "application/json";
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    }
    const res = await fetch(`${this.server.url}/api/v1${path}`, { method, headers, body });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }

  /** Like `request`, but throws unless the status is the expected one; returns the body. */
  async ok<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    expected = method === "POST" ? 201 : 200,
    headers?: Headers,
  ): Promise<T> {
    const res = await this.request<T>(method, path, { body, headers });
    if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async user(role: Actor["role"] = "annotator", overrides: Json = {}): Promise<Actor> {
    const username = uniqueName(role);
    const password = "password-1234";
    const user = await this.ok<Json & { id: string; api_key: string }>("POST", "/users", {
      username,
      password,
      role,
      first_name: username,
      ...overrides,
    });
    return { id: user.id, username, password, role, apiKey: user.api_key, headers: { "x-argilla-api-key": user.api_key } };
  }

  async workspace(name = uniqueName("ws")): Promise<{ id: string; name: string }> {
    return this.ok("POST", "/workspaces", { name });
  }

  async addMember(workspaceId: string, userId: string): Promise<void> {
    await this.ok("POST", `/workspaces/${workspaceId}/users`, { user_id: userId });
  }

  /** A user of `role` who is a member of `workspaceId`. */
  async member(workspaceId: string, role: Actor["role"] = "annotator"): Promise<Actor> {
    const actor = await this.user(role);
    await this.addMember(workspaceId, actor.id);
    return actor;
  }

  async dataset(workspaceId: string, body: Json = {}): Promise<Json & { id: string; name: string; status: string }> {
    return this.ok("POST", "/datasets", { name: uniqueName("ds"), workspace_id: workspaceId, ...body });
  }

  async field(datasetId: string, body: Json = {}): Promise<Json & { id: string; name: string }> {
    const name = uniqueName("f");
    return this.ok("POST", `/datasets/${datasetId}/fields`, { name, title: name, required: true, settings: { type: "text" }, ...body });
  }

  async question(datasetId: string, body: Json = {}): Promise<Json & { id: string; name: string }> {
    const name = uniqueName("q");
    return this.ok("POST", `/datasets/${datasetId}/questions`, {
      name,
      title: name,
      required: true,
      settings: {
        type: "label_selection",
        options: [
          { value: "yes", text: "Yes" },
          { value: "no", text: "No" },
        ],
      },
      ...body,
    });
  }

  async metadataProperty(datasetId: string, body: Json = {}): Promise<Json & { id: string; name: string }> {
    const name = uniqueName("m");
    return this.ok("POST", `/datasets/${datasetId}/metadata-properties`, {
      name,
      title: name,
      settings: { type: "terms", values: null },
      ...body,
    });
  }

  async vectorSettings(datasetId: string, body: Json = {}): Promise<Json & { id: string; name: string }> {
    const name = uniqueName("v");
    return this.ok("POST", `/datasets/${datasetId}/vectors-settings`, { name, title: name, dimensions: 3, ...body });
  }

  /** Creates records through `POST /datasets/{id}/records/bulk` (201 expected); their ids, in the items' order. */
  async records(datasetId: string, items: Json[], headers?: Headers): Promise<string[]> {
    const created = await this.ok<{ items: { id: string }[] }>("POST", `/datasets/${datasetId}/records/bulk`, { items }, 201, headers);
    return created.items.map((r) => r.id);
  }

  async publish(datasetId: string): Promise<Json> {
    return this.ok("PUT", `/datasets/${datasetId}/publish`, undefined, 200);
  }

  /** A workspace, a draft dataset in it, one required text field and one required label question, published unless `draft`. */
  async readyDataset(
    options: { draft?: boolean } = {},
  ): Promise<{ workspaceId: string; datasetId: string; fieldName: string; questionName: string }> {
    const ws = await this.workspace();
    const ds = await this.dataset(ws.id);
    const field = await this.field(ds.id);
    const question = await this.question(ds.id);
    if (!options.draft) await this.publish(ds.id);
    return { workspaceId: ws.id, datasetId: ds.id, fieldName: field.name, questionName: question.name };
  }
}

/**
 * One real server for the calling test file, started in `beforeAll` (with `env`, or what `env()` returns
 * once earlier hooks ran) and stopped in `afterAll`, and fixtures over it (`fx.server` inside tests).
 */
export function serverForFile(env: Record<string, string> | (() => Record<string, string>) = {}): Fixtures {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(typeof env === "function" ? env() : env);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return new Fixtures(() => {
    if (!server) throw new Error("the test server is not started: use the fixtures inside tests or hooks");
    return server;
  });
}

/** A page of items (`{ items: [...] }`). */
export type Items = { items: Json[] };
/** The 422 body of a request that failed validation. */
export type ValidationBody = { detail: { code: string; params: { errors: { loc: (string | number)[]; msg: string }[] } } };
/** A well-formed id that names nothing. */
export const MISSING = "00000000-0000-4000-8000-000000000000";

/** The legacy 403 body of contract 1.4. */
export const FORBIDDEN = { detail: { code: "argilla.api.errors::ForbiddenOperationError", params: { detail: "Operation not allowed" } } };
/** The legacy 401 body of contract 1.1. */
export const UNAUTHORIZED = {
  detail: { code: "argilla.api.errors::UnauthorizedError", params: { detail: "Could not validate credentials" } },
};
