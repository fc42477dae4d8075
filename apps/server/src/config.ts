import { resolve } from "node:path";
import { loadHubConfig, type HubConfig } from "./hub/config.js";
import { loadHostedSpace, loadOAuthConfig, type HostedSpace, type OAuthConfig } from "./oauth/oauth-config.js";
import { loadSecurityConfig, type SecurityConfig } from "./security/config.js";
import { loadWebhookConfig, type WebhookConfig } from "./webhooks/config.js";
import { loadUploadConfig, type UploadConfig } from "./transfer/import/config.js";
import { parseSearchOff, type SearchStructure } from "./search/search-off.js";

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  /** `DATABASE_URL=postgres://...` runs on PostgreSQL (docs/deployment.md); null keeps the embedded store. */
  databaseUrl: string | null;
  /** Connections per replica in the PostgreSQL pool (`TESSERA_DATABASE_POOL_SIZE`, default 10). */
  databasePoolSize: number;
  /** Embedded store: read threads (search/sqlite-read-pool.ts: text matches not cached yet, least similar's reads; `TESSERA_TEXT_MATCH_THREADS`, the name documented before they read more than text; unset: 2, or 1 on one core; 0: the request thread). */
  readThreads: number | undefined;
  /** Text searches count their total exactly up to this many records, then answer it as a lower bound (`TESSERA_TEXT_TOTAL_BOUND`, default 10,000; 0: always exact; not a whole number: refused). */
  textTotalBound: number | null;
  /**
   * PostgreSQL: searches with a metadata filter (or, with text, any filter other than the queue's) count their total
   * exactly up to this many records, then answer it as a lower bound (`TESSERA_FILTER_TOTAL_BOUND`, default 1,000; 0:
   * only `textTotalBound` applies). The embedded store counts those from its in-memory columns and ignores it.
   */
  filterTotalBound: number | null;
  /** Embedded store: SQLite page cache of the request thread's connection, MiB per database file (`TESSERA_SQLITE_CACHE_MIB`, 1-4096; unset or invalid: db/database.ts's default). */
  sqliteCacheMib: number | undefined;
  /** Embedded store: prefix lengths of the full-text index's prefix index (`TESSERA_TEXT_PREFIX_INDEX`, e.g. "3 4"; unset: search/text-index.ts's default; "none": no prefix index; anything else is refused). */
  textPrefixIndex: string | undefined;
  /** Embedded store: `TESSERA_TEXT_RANKING=bm25` ranks text with FTS5's bm25() instead of the ranking extension (search/rank-extension.ts); unset or `auto`: the extension when built; anything else is refused. */
  textRanking: "auto" | "bm25";
  /** Embedded store: search structures switched off (`TESSERA_SEARCH_OFF`, search/search-off.ts: the plain path answers instead; measurements); unknown names are refused. */
  searchOff: SearchStructure[];
  /** Directory of the built web app; served on the same origin when it exists. */
  webDist: string | null;
  ownerUsername: string;
  ownerPassword: string | null;
  /** HS256 signing secret from the environment (replicas); otherwise persisted in the database. */
  authSecret: string | null;
  tokenExpirationSeconds: number;
  seedDemo: boolean;
  logLevel: string;
  /** Hub dataset viewer client and background jobs (docs/hub.md). */
  hub: HubConfig;
  /** OAuth providers and rules (docs/oauth.md). */
  oauth: OAuthConfig;
  /** The hosted space (Hugging Face Spaces) the server runs in, or null. */
  hostedSpace: HostedSpace | null;
  /** Headers, proxy trust, login rate limits, body limits (docs/security.md). */
  security: SecurityConfig;
  /** Webhook delivery timeout (docs/api.md). */
  webhooks: WebhookConfig;
  /** File uploads: size limits (docs/api.md "Record uploads"). */
  uploads: UploadConfig;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv.slice(2)): ServerConfig {
  const flag = (name: string) => argv.includes(`--${name}`);
  const option = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const port = Number(option("port") ?? env.TESSERA_PORT ?? env.PORT ?? 6900);
  return {
    host: option("host") ?? env.TESSERA_HOST ?? "127.0.0.1",
    port: Number.isInteger(port) && port >= 0 ? port : 6900,
    dataDir: resolve(option("data-dir") ?? env.TESSERA_DATA_DIR ?? "./data"),
    databaseUrl: option("database-url") ?? (env.TESSERA_DATABASE_URL || env.DATABASE_URL || null),
    databasePoolSize: Math.max(1, Number(env.TESSERA_DATABASE_POOL_SIZE ?? 10) || 10),
    readThreads: wholeNumber("TESSERA_TEXT_MATCH_THREADS", env.TESSERA_TEXT_MATCH_THREADS, 16),
    textTotalBound: totalBound("TESSERA_TEXT_TOTAL_BOUND", env.TESSERA_TEXT_TOTAL_BOUND, 10_000),
    filterTotalBound: totalBound("TESSERA_FILTER_TOTAL_BOUND", env.TESSERA_FILTER_TOTAL_BOUND, 1_000),
    sqliteCacheMib: mib(env.TESSERA_SQLITE_CACHE_MIB),
    textPrefixIndex: textPrefixIndex(env.TESSERA_TEXT_PREFIX_INDEX),
    textRanking: textRanking(env.TESSERA_TEXT_RANKING),
    searchOff: searchOff(env.TESSERA_SEARCH_OFF),
    webDist: option("web-dist") ?? env.TESSERA_WEB_DIST ?? null,
    // In a hosted space (SPACE_ID set) the first owner is the space author, or the USERNAME /
    // PASSWORD secrets when the space sets them (hub.md); elsewhere USERNAME is the shell's, not ours.
    ownerUsername: env.TESSERA_OWNER_USERNAME || (env.SPACE_ID ? env.USERNAME || env.SPACE_AUTHOR_NAME : undefined) || "owner",
    ownerPassword: env.TESSERA_OWNER_PASSWORD || (env.SPACE_ID ? env.PASSWORD : undefined) || null,
    authSecret: env.TESSERA_AUTH_SECRET_KEY || env.ARGILLA_AUTH_SECRET_KEY || null,
    tokenExpirationSeconds: Number(env.TESSERA_AUTH_TOKEN_EXPIRATION ?? env.ARGILLA_AUTH_TOKEN_EXPIRATION ?? 86400),
    seedDemo: flag("demo") || env.TESSERA_DEMO === "1",
    logLevel: env.TESSERA_LOG_LEVEL ?? "warn",
    hub: loadHubConfig(env),
    hostedSpace: loadHostedSpace(env),
    oauth: loadOAuthConfig(env),
    security: loadSecurityConfig(env),
    webhooks: loadWebhookConfig(env),
    uploads: loadUploadConfig(env),
  };
}

/**
 * A setting the server cannot use: refused at start (serve.ts prints the message and exits) rather than
 * silently replaced by its default, so that a typo in a search setting is not a slower or other search.
 */
export class ConfigError extends Error {}

/** An unset (or empty) setting, or a whole number from 0 (to `max`): else refused. */
function wholeNumber(name: string, value: string | undefined, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? "a whole number (0 or more)" : `a whole number from 0 to ${max}`;
    throw new ConfigError(`${name}=${value} is not valid: ${range}, or unset.`);
  }
  return n;
}

/** A count bound (`TESSERA_TEXT_TOTAL_BOUND`, `TESSERA_FILTER_TOTAL_BOUND`): unset `fallback`; 0 none; a whole number, else refused. */
function totalBound(name: string, value: string | undefined, fallback: number): number | null {
  const n = wholeNumber(name, value);
  if (n === undefined) return fallback;
  return n > 0 ? n : null;
}

/** `TESSERA_TEXT_PREFIX_INDEX`: lengths (1-999, FTS5's range) such as "3 4" or "2,3"; "none": ""; unset: undefined (the default); else refused. */
function textPrefixIndex(value: string | undefined): string | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (v === "none") return "";
  if (/^\d+([\s,]+\d+)*$/.test(v) && v.split(/[\s,]+/).every((n) => Number(n) >= 1 && Number(n) <= 999)) return v;
  throw new ConfigError(
    `TESSERA_TEXT_PREFIX_INDEX=${value} is not valid: prefix lengths from 1 to 999 separated by spaces or commas (e.g. "3 4"), "none", or unset.`,
  );
}

/** `TESSERA_TEXT_RANKING`: "auto" (or unset) or "bm25"; else refused. */
function textRanking(value: string | undefined): "auto" | "bm25" {
  const v = value?.trim();
  if (!v || v === "auto") return "auto";
  if (v === "bm25") return "bm25";
  throw new ConfigError(`TESSERA_TEXT_RANKING=${value} is not valid: "auto" (the ranking extension when built), "bm25", or unset.`);
}

/** `TESSERA_SEARCH_OFF`: names of search/search-off.ts's structures; else refused. */
function searchOff(value: string | undefined): SearchStructure[] {
  const off = parseSearchOff(value);
  if (typeof off === "string") throw new ConfigError(off);
  return off;
}

/** A whole number of MiB from 1 to 4096, or undefined (unset, or not such a number). */
function mib(value: string | undefined): number | undefined {
  const n = Number(value);
  return value && Number.isInteger(n) && n >= 1 && n <= 4096 ? n : undefined;
}
