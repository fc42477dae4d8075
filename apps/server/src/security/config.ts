/**
 * Security settings (docs/security.md). Every value has a safe default; the environment can tighten
 * or, where a deployment needs it (reverse proxy, hosted space), loosen them.
 */
export interface SecurityConfig {
  /**
   * Whether `X-Forwarded-*` headers from the peer are believed (Fastify `trustProxy`): `true`, a hop
   * count, or a comma-separated list of proxy addresses/CIDRs. Off by default, so a client cannot
   * fake its address (login rate limits) or the TLS state (HSTS).
   */
  trustProxy: boolean | string[] | ((address: string, hop: number) => boolean);
  /** `frame-ancestors` sources: who may embed the web app. `'self'` unless configured or on a hosted space. */
  frameAncestors: string[];
  /** HSTS max-age (seconds) sent on requests that arrived over TLS; 0 disables it. */
  hstsMaxAgeSeconds: number;
  /** Login rate limits: failed (or pending) sign-ins per username and per client address within the window. */
  /**
   * Sign-in throttling (security/login-limiter.ts): failures are forgotten `windowSeconds` after the
   * last one; `maxPerUser` free failures per username and address (4x that per username over all
   * addresses), `maxPerAddress` per address; then delays double from 1 s up to `maxDelaySeconds`
   * (`userMaxDelaySeconds` for the per-username counter).
   */
  login: { windowSeconds: number; maxPerUser: number; maxPerAddress: number; maxDelaySeconds: number; userMaxDelaySeconds: number };
  /** Body limit of ordinary routes; bulk routes keep the server-wide limit. */
  routeBodyLimitBytes: number;
  /**
   * Origins the web app may call besides its own (`connect-src`, and `img-src` for image cells): the
   * Hub dataset viewer, which the dataset-creation page reads directly from the browser (docs/hub.md).
   */
  connectSources: string[];
}

/** The origin of the configured Hub dataset viewer (TESSERA_HUB_DATASETS_SERVER_URL), if it is a valid http(s) URL. */
export function hubViewerOrigin(env: Env): string[] {
  try {
    const url = new URL(env.TESSERA_HUB_DATASETS_SERVER_URL || DEFAULT_DATASETS_SERVER_URL);
    return url.protocol === "https:" || url.protocol === "http:" ? [url.origin] : [];
  } catch {
    return [];
  }
}

type Env = Record<string, string | undefined>;

const DEFAULT_DATASETS_SERVER_URL = "https://datasets-server.huggingface.co";

const positiveInt = (value: string | undefined, fallback: number): number => {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isInteger(n) && n >= 0 ? n : fallback;
};

export function parseTrustProxy(value: string | undefined): SecurityConfig["trustProxy"] {
  const v = value?.trim();
  if (!v || v === "0" || v.toLowerCase() === "false") return false;
  if (v.toLowerCase() === "true") return true;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return (_address: string, hop: number) => hop < hops;
  }
  return v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Hosted spaces (Hugging Face) show the app inside huggingface.co, so embedding must be allowed there. */
export const HOSTED_SPACE_FRAME_ANCESTORS = ["'self'", "https://huggingface.co", "https://*.hf.space"];

export function loadSecurityConfig(env: Env): SecurityConfig {
  const ancestors = env.TESSERA_FRAME_ANCESTORS?.trim();
  return {
    trustProxy: parseTrustProxy(env.TESSERA_TRUST_PROXY),
    frameAncestors: ancestors ? ancestors.split(/[\s,]+/).filter(Boolean) : env.SPACE_ID ? HOSTED_SPACE_FRAME_ANCESTORS : ["'self'"],
    hstsMaxAgeSeconds: positiveInt(env.TESSERA_HSTS_MAX_AGE, 31_536_000),
    login: {
      windowSeconds: Math.max(1, positiveInt(env.TESSERA_LOGIN_WINDOW_SECONDS, 900)),
      maxPerUser: Math.max(1, positiveInt(env.TESSERA_LOGIN_MAX_PER_USER, 5)),
      maxPerAddress: Math.max(1, positiveInt(env.TESSERA_LOGIN_MAX_PER_ADDRESS, 30)),
      maxDelaySeconds: Math.max(1, positiveInt(env.TESSERA_LOGIN_MAX_DELAY_SECONDS, 900)),
      userMaxDelaySeconds: Math.max(1, positiveInt(env.TESSERA_LOGIN_USER_MAX_DELAY_SECONDS, 5)),
    },
    routeBodyLimitBytes: Math.max(1024, positiveInt(env.TESSERA_ROUTE_BODY_LIMIT, 8 * 1024 * 1024)),
    connectSources: hubViewerOrigin(env),
  };
}
