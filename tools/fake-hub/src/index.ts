import Fastify, { type FastifyInstance } from "fastify";
import { DEFAULT_DATASETS_DIR, loadCatalog, type DatasetData } from "./catalog.js";
import { viewerRoutes } from "./viewer.js";

export { MAX_ROWS_PER_PAGE } from "./viewer.js";
export type { DatasetDescriptor, Feature, Row } from "./catalog.js";

/** The token the fake hub accepts for gated datasets unless others are given. */
export const FAKE_HUB_TOKEN = "hf_tessera_fake_token";

export interface FakeHubOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Directory of dataset descriptors; defaults to the fixtures in `tools/fake-hub/datasets`. */
  datasetsDir?: string;
  /** Bearer tokens accepted for gated datasets. */
  tokens?: string[];
  /** Base URL written into image `src` values (default: the origin the request came to). */
  publicUrl?: string;
  logger?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
}

export interface FakeHub {
  /** Base URL, e.g. `http://127.0.0.1:6901`: the dataset viewer endpoints live at its root. */
  url: string;
  /** Every request received, oldest first (tests assert paging and tokens with it). */
  requests: RecordedRequest[];
  datasets: Map<string, DatasetData>;
  app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * Builds the fake hub's Fastify app. Each service is its own encapsulated plugin (today the
 * dataset viewer; an OAuth provider can be registered beside it later).
 */
export async function buildFakeHub(
  options: FakeHubOptions = {},
): Promise<{ app: FastifyInstance; requests: RecordedRequest[]; datasets: Map<string, DatasetData> }> {
  const datasets = loadCatalog(options.datasetsDir ?? DEFAULT_DATASETS_DIR);
  const requests: RecordedRequest[] = [];
  const app = Fastify({ logger: options.logger ?? false });
  app.addHook("onRequest", async (request, reply) => {
    const url = new URL(request.url, "http://fake-hub");
    requests.push({
      method: request.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: request.headers.authorization ?? null,
    });
    // The real viewer answers browsers directly (hub.md 1.1), so the web app can call it cross-origin.
    reply.header("Access-Control-Allow-Origin", "*");
    reply.header("Access-Control-Expose-Headers", "X-Error-Code, X-Revision");
    if (request.method === "OPTIONS") {
      return reply
        .status(204)
        .header("Access-Control-Allow-Methods", "GET, OPTIONS")
        .header("Access-Control-Allow-Headers", "Authorization, Content-Type")
        .header("Access-Control-Max-Age", "600")
        .send();
    }
  });
  app.options("*", async (_request, reply) => reply.status(204).send());
  await app.register(async (scope) => {
    viewerRoutes(scope, {
      catalog: datasets,
      tokens: new Set(options.tokens ?? [FAKE_HUB_TOKEN]),
      ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    });
  });
  return { app, requests, datasets };
}

/** Starts the fake hub on `host:port` (127.0.0.1 and a free port by default). */
export async function startFakeHub(options: FakeHubOptions = {}): Promise<FakeHub> {
  const { app, requests, datasets } = await buildFakeHub(options);
  const host = options.host ?? "127.0.0.1";
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 0);
  const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`;
  return { url, requests, datasets, app, close: () => app.close() };
}
