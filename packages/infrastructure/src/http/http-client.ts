import ky, { HTTPError, type KyInstance, type Options } from "ky";
import type { NotificationPort, TokenStore } from "@tessera/domain";
import { cacheSecondsFor, HttpCache, invalidationsFor } from "./cache.js";
import { handleFailedRequest } from "./failed-request-handler.js";

export interface HttpClientOptions {
  /** Base path of the API, 'api' by default (spec section 7), resolved against the page origin. */
  basePath?: string;
  origin?: string;
  fetch?: typeof fetch;
  /** Where failed requests raise their toasts (the web app's toast store). */
  notifications?: NotificationPort;
  /** The cache of GET responses (one per container). */
  cache?: HttpCache;
}

/** Paths reached without credentials (spec section 6): login, settings, OAuth providers. */
const PUBLIC_PATHS = [/^v1\/token$/, /^v1\/settings$/, /^v1\/oauth2\/providers/];

/**
 * The ky client every repository uses: base path, Authorization header on non-public calls,
 * max-age caching of some GETs with invalidation after changes, and the failed-request handler.
 */
export function createHttpClient(tokens: TokenStore, options: HttpClientOptions = {}): KyInstance {
  const origin = options.origin ?? (typeof location !== "undefined" ? location.origin : "http://localhost:6900");
  const basePath = (options.basePath ?? "api").replace(/^\/+|\/+$/g, "");
  const cache = options.cache ?? new HttpCache();
  const pathOf = (request: Request) => decodeURI(new URL(request.url).pathname).replace(new RegExp(`^/${basePath}/`), "");
  const cacheKey = (request: Request) => `${request.headers.get("Authorization") ?? ""} ${request.url}`;
  const kyOptions: Options = {
    prefix: `${origin}/${basePath}/`,
    retry: 0,
    timeout: 60_000,
    hooks: {
      beforeRequest: [
        ({ request }) => {
          const path = pathOf(request);
          const token = tokens.get();
          if (token && !PUBLIC_PATHS.some((p) => p.test(path))) request.headers.set("Authorization", `Bearer ${token}`);
          if (request.method === "GET" && cacheSecondsFor(path) !== null) return cache.get(cacheKey(request)) ?? undefined;
          return undefined;
        },
      ],
      afterResponse: [
        async ({ request, response }) => {
          if (!response.ok) return;
          const path = pathOf(request);
          if (request.method === "GET") {
            const seconds = cacheSecondsFor(path);
            if (seconds !== null && !response.headers.has("x-tessera-cached")) await cache.put(cacheKey(request), path, response, seconds);
          } else {
            cache.invalidate(invalidationsFor(request.method, path));
          }
        },
      ],
      beforeError: [
        ({ error }) => {
          if (options.notifications && error instanceof HTTPError) {
            handleFailedRequest({ status: error.response.status, data: error.data }, options.notifications);
          }
          return error;
        },
      ],
    },
  };
  if (options.fetch) kyOptions.fetch = options.fetch;
  return ky.create(kyOptions);
}

/** The HTTP status of a failed call, when there is one. */
export function statusOf(error: unknown): number | undefined {
  return error instanceof HTTPError ? error.response.status : undefined;
}
