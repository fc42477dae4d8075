import ky, { HTTPError, type KyInstance, type Options } from "ky";
import type { TokenStore } from "@tessera/domain";

export interface HttpClientOptions {
  /** Base path of the API, 'api' by default (spec section 7), resolved against the page origin. */
  basePath?: string;
  origin?: string;
  fetch?: typeof fetch;
}

/** Paths reached without credentials (spec section 6): login, settings, OAuth providers. */
const PUBLIC_PATHS = [/^v1\/token$/, /^v1\/settings$/, /^v1\/oauth2\/providers/];

/** The ky client every repository uses: base path, Authorization header on non-public calls. */
export function createHttpClient(tokens: TokenStore, options: HttpClientOptions = {}): KyInstance {
  const origin = options.origin ?? (typeof location !== "undefined" ? location.origin : "http://localhost:6900");
  const basePath = (options.basePath ?? "api").replace(/^\/+|\/+$/g, "");
  const kyOptions: Options = {
    prefix: `${origin}/${basePath}/`,
    retry: 0,
    timeout: 60_000,
    hooks: {
      beforeRequest: [
        ({ request }) => {
          const path = new URL(request.url).pathname.replace(new RegExp(`^/${basePath}/`), "");
          const token = tokens.get();
          if (token && !PUBLIC_PATHS.some((p) => p.test(path))) request.headers.set("Authorization", `Bearer ${token}`);
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
