import type { FastifyInstance, FastifyRequest } from "fastify";
import type { SecurityConfig } from "./config.js";
import { CUSTOM_FIELD_FRAME_CSP, CUSTOM_FIELD_FRAME_HTML, securityHeaders } from "./headers.js";
import { LoginLimiter, type LoginAttempt } from "./login-limiter.js";
import { installStorableTextCheck } from "./storable-text.js";

export interface RouteEntry {
  method: string;
  url: string;
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>();

/** Every route registered after `installSecurity` (HEAD twins left out): the authorization matrix walks it. */
export function routeTable(app: FastifyInstance): RouteEntry[] {
  return [...(tables.get(app) ?? [])];
}

export const LOGIN_ROUTE = "/api/v1/token";
export const TOKEN_BODY_LIMIT_BYTES = 64 * 1024;
export const RATE_LIMITED = { detail: "Please wait a few seconds before trying again" };
export const CUSTOM_FIELD_FRAME_PATH = "/frames/custom-field.html";

/** Routes that take many items at once keep the server-wide body limit. */
const isBulkRoute = (url: string) => url.endsWith("/bulk");

/**
 * Installs the server's defences (docs/security.md): security headers and CSP on every answer,
 * per-route body limits, text no store can keep (422), the login rate limit and the custom-field frame. Call it before any route
 * is registered so the route table and the body limits see every route.
 */
export function installSecurity(app: FastifyInstance, config: SecurityConfig): void {
  const table: RouteEntry[] = [];
  tables.set(app, table);
  app.addHook("onRoute", (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) if (method !== "HEAD") table.push({ method, url: route.url });
    if (route.bodyLimit === undefined) {
      if (route.url === LOGIN_ROUTE) route.bodyLimit = TOKEN_BODY_LIMIT_BYTES;
      else if (!isBulkRoute(route.url)) route.bodyLimit = config.routeBodyLimitBytes;
    }
  });

  app.addHook("onSend", securityHeaders(config));
  installStorableTextCheck(app);

  const { login } = config;
  const limiter = new LoginLimiter({
    freePerPair: login.maxPerUser,
    freePerUser: 4 * login.maxPerUser,
    freePerAddress: login.maxPerAddress,
    baseDelayMs: 1000,
    maxDelayMs: login.maxDelaySeconds * 1000,
    userMaxDelayMs: login.userMaxDelaySeconds * 1000,
    forgetMs: login.windowSeconds * 1000,
  });
  const attempts = new WeakMap<FastifyRequest, LoginAttempt>();
  app.addHook("preHandler", async (request, reply) => {
    if (request.method !== "POST" || request.routeOptions.url !== LOGIN_ROUTE) return;
    const body = request.body as Record<string, unknown> | null | undefined;
    const username = body && typeof body === "object" && typeof body.username === "string" ? body.username : "";
    const address = request.ip;
    const result = limiter.begin(username, address);
    if (!result.ok) {
      return reply.status(429).header("Retry-After", String(result.retryAfterSeconds)).send(RATE_LIMITED);
    }
    attempts.set(request, result.attempt);
  });
  app.addHook("onResponse", async (request, reply) => {
    const attempt = attempts.get(request);
    if (!attempt) return;
    if (reply.statusCode >= 200 && reply.statusCode < 300) limiter.succeeded(attempt);
    else limiter.failed(attempt);
  });

  app.get(CUSTOM_FIELD_FRAME_PATH, async (_request, reply) =>
    reply
      .header("Content-Security-Policy", CUSTOM_FIELD_FRAME_CSP)
      .header("Cache-Control", "no-cache")
      .type("text/html; charset=utf-8")
      .send(CUSTOM_FIELD_FRAME_HTML),
  );
}
