import { CACHE_DEFAULT_SECONDS, CACHE_LARGE_SECONDS, CACHE_MEDIUM_SECONDS } from "@tessera/domain";

/** Max-age presets (spec section 7 and 9). */
export const CACHE_PRESETS = { large: CACHE_LARGE_SECONDS, medium: CACHE_MEDIUM_SECONDS, default: CACHE_DEFAULT_SECONDS } as const;

/** Which GET paths (relative to the base path, no query) are cached, and for how long. */
export const CACHE_RULES: ReadonlyArray<{ pattern: RegExp; seconds: number }> = [
  { pattern: /^v1\/datasets\/[^/]+$/, seconds: CACHE_PRESETS.large },
  { pattern: /^v1\/datasets\/[^/]+\/progress$/, seconds: CACHE_PRESETS.large },
  { pattern: /^v1\/workspaces\/[^/]+$/, seconds: CACHE_PRESETS.large },
  { pattern: /^v1\/settings$/, seconds: CACHE_PRESETS.medium },
  { pattern: /^v1\/oauth2\/providers$/, seconds: CACHE_PRESETS.medium },
  { pattern: /^v1\/datasets\/[^/]+\/(fields|questions|vectors-settings)$/, seconds: CACHE_PRESETS.default },
  { pattern: /^v1\/me\/datasets\/[^/]+\/(metadata-properties|metrics)$/, seconds: CACHE_PRESETS.default },
];

export function cacheSecondsFor(path: string): number | null {
  return CACHE_RULES.find((r) => r.pattern.test(path))?.seconds ?? null;
}

/**
 * The invalidations of a successful update or creation: the cached entries (paths) it makes stale.
 * Progress and metrics are cleared after every change; dataset-scoped changes clear the dataset.
 */
export function invalidationsFor(method: string, path: string): RegExp[] {
  if (method === "GET" || method === "HEAD") return [];
  const always = [/\/progress$/, /\/metrics$/];
  const dataset = /^v1\/datasets\/([^/]+)/.exec(path)?.[1];
  if (dataset) {
    const id = dataset.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    return [...always, new RegExp(`^v1/(me/)?datasets/${id}(/|$)`), /^v1\/me\/datasets$/];
  }
  if (/^v1\/questions\//.test(path)) return [...always, /\/questions$/];
  if (/^v1\/fields\//.test(path)) return [...always, /\/fields$/];
  if (/^v1\/vectors-settings\//.test(path)) return [...always, /\/vectors-settings$/];
  if (/^v1\/metadata-properties\//.test(path)) return [...always, /\/metadata-properties$/];
  if (/^v1\/workspaces/.test(path)) return [...always, /^v1\/workspaces\//, /^v1\/me\/workspaces$/];
  return always;
}

interface Entry {
  path: string;
  expires: number;
  status: number;
  headers: [string, string][];
  body: string;
}

/** An in-memory max-age cache of GET responses, keyed by URL and credentials. */
export class HttpCache {
  private readonly entries = new Map<string, Entry>();
  constructor(private readonly now: () => number = () => Date.now()) {}

  get(key: string): Response | null {
    const e = this.entries.get(key);
    if (!e) return null;
    if (e.expires <= this.now()) {
      this.entries.delete(key);
      return null;
    }
    return new Response(e.body, { status: e.status, headers: [...e.headers, ["x-tessera-cached", "1"]] });
  }

  async put(key: string, path: string, response: Response, seconds: number): Promise<void> {
    const body = await response.text();
    this.entries.set(key, {
      path,
      expires: this.now() + seconds * 1000,
      status: response.status,
      headers: headerList(response.headers),
      body,
    });
  }

  invalidate(patterns: RegExp[]): void {
    for (const [key, e] of this.entries) if (patterns.some((p) => p.test(e.path))) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
  get size(): number {
    return this.entries.size;
  }
}

function headerList(headers: Headers): [string, string][] {
  const list: [string, string][] = [];
  headers.forEach((value, name) => {
    list.push([name, value]);
  });
  return list;
}
