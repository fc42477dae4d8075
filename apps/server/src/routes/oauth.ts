import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import * as oidc from "openid-client";
import type { AppContext } from "../context.js";
import { HttpError, notFound } from "../http/errors.js";
import { loadSigningSecret } from "../auth/secrets.js";
import type { OAuthConfig } from "../oauth/oauth-config.js";
import { OAuthProviderClient, ProviderRefusedError, ProviderUnavailableError } from "../oauth/provider-client.js";
import { InvalidStateError, OAuthStateStore } from "../oauth/state-store.js";
import { OAuthUserError, findOrCreateOAuthUser } from "../oauth/oauth-users.js";
import { claimsOf } from "../auth/tokens.js";

const STATE_COOKIE = "tessera_oauth2_state";
/** Query parameters of the authentication call that are passed on to the provider (HF: ask for an org, force consent). */
const FORWARDED_PARAMS = ["orgIds", "prompt"];

const badRequest = (detail: string) => new HttpError(400, { detail });

/**
 * Sign-in through an OAuth / OpenID Connect provider (contract 3.17, hub.md 3.5):
 * - GET /api/v1/oauth2/providers
 * - GET /api/v1/oauth2/providers/{provider}/authentication: 303 to the provider's authorize URL
 * - GET /api/v1/oauth2/providers/{provider}/access-token?code&state: a Tessera bearer token
 * The state is signed, expires, is bound to the browser by an HttpOnly cookie and works once.
 */
export function oauthRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { oauth: config, hostedSpace: space } = ctx.config;
  const clients = new Map(config.providers.map((p) => [p.name, new OAuthProviderClient(p)]));
  let stateStore: Promise<OAuthStateStore> | null = null;
  const states = () =>
    (stateStore ??= loadSigningSecret(ctx.db, ctx.config.authSecret).then(
      (secret) => new OAuthStateStore(ctx.db, secret, config.stateTtlSeconds),
    ));

  const clientFor = (provider: string) => {
    const client = clients.get(provider);
    if (!client) throw notFound(`OAuth Provider '${provider}' not found`);
    return client;
  };

  app.get("/api/v1/oauth2/providers", async () => ({ items: config.providers.map((p) => ({ name: p.name })) }));

  app.get<{ Params: { provider: string }; Querystring: Record<string, unknown> }>(
    "/api/v1/oauth2/providers/:provider/authentication",
    async (request, reply) => {
      const client = clientFor(request.params.provider);
      const query = request.query ?? {};
      const extra: Record<string, string> = {};
      for (const name of FORWARDED_PARAMS) if (typeof query[name] === "string") extra[name] = query[name];
      const redirectUri =
        client.config.redirectUri ?? `${publicBase(request, config)}/oauth/${encodeURIComponent(client.config.name)}/callback`;
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      const { id, state } = await (
        await states()
      ).create({
        provider: client.config.name,
        codeVerifier,
        nonce,
        redirectUri,
        redirectTo: localPath(query.redirect),
      });
      let url: URL;
      try {
        url = await client.authorizationUrl({ state, codeVerifier, nonce, redirectUri, extra });
      } catch (error) {
        throw providerError(error);
      }
      setStateCookie(reply, client.config.name, id, redirectUri.startsWith("https:"), config.stateTtlSeconds);
      return reply.redirect(url.href, 303);
    },
  );

  app.get<{ Params: { provider: string }; Querystring: Record<string, unknown> }>(
    "/api/v1/oauth2/providers/:provider/access-token",
    async (request, reply) => {
      const client = clientFor(request.params.provider);
      const query = request.query ?? {};
      const state = typeof query.state === "string" ? query.state : null;
      if (!state) throw badRequest("The OAuth state is missing");
      const store = await states();
      let id: string;
      try {
        id = await store.verify(state, client.config.name);
      } catch (error) {
        if (error instanceof InvalidStateError) throw badRequest("The OAuth state is invalid or has expired");
        throw error;
      }
      if (readCookie(request, STATE_COOKIE) !== id) throw badRequest("The OAuth state does not belong to this browser session");
      const pending = await store.consume(id);
      clearStateCookie(reply, client.config.name);
      if (!pending) throw badRequest("The OAuth state was already used or has expired");
      if (typeof query.error === "string") {
        const description = typeof query.error_description === "string" ? `: ${query.error_description}` : "";
        throw badRequest(`The OAuth provider refused the sign-in: ${query.error}${description}`);
      }
      if (typeof query.code !== "string" || !query.code) throw badRequest("The authorization code is missing");

      const callbackQuery = new URLSearchParams();
      for (const [key, value] of Object.entries(query)) if (typeof value === "string") callbackQuery.set(key, value);
      let user;
      try {
        const identity = await client.exchange(callbackQuery, pending);
        user = await findOrCreateOAuthUser(ctx.db, client.config.name, identity, config, space);
      } catch (error) {
        if (error instanceof OAuthUserError) throw new HttpError(error.status, { detail: error.message });
        throw providerError(error);
      }
      const accessToken = await ctx.tokens.sign(claimsOf(user));
      return reply
        .status(200)
        .send({ access_token: accessToken, token_type: "bearer", ...(pending.redirectTo ? { redirect_to: pending.redirectTo } : {}) });
    },
  );
}

function providerError(error: unknown): unknown {
  if (error instanceof ProviderRefusedError) return new HttpError(401, { detail: error.message });
  if (error instanceof ProviderUnavailableError) return new HttpError(502, { detail: error.message });
  return error;
}

/** Only local paths are remembered (no open redirect). */
function localPath(value: unknown): string | null {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\") || value.length > 2000)
    return null;
  return value;
}

/** The app's public origin: configured (or the space's https host), else the request's, honouring a proxy's forwarded headers. */
function publicBase(request: FastifyRequest, config: OAuthConfig): string {
  if (config.publicUrl) return config.publicUrl;
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(",")[0]?.trim();
  const proto = first(request.headers["x-forwarded-proto"]) === "https" ? "https" : request.protocol;
  const host = first(request.headers["x-forwarded-host"]) ?? request.headers.host ?? "localhost";
  return `${proto}://${host}`;
}

const cookiePath = (provider: string) => `/api/v1/oauth2/providers/${encodeURIComponent(provider)}`;

function setStateCookie(reply: FastifyReply, provider: string, id: string, secure: boolean, maxAge: number): void {
  reply.header(
    "set-cookie",
    `${STATE_COOKIE}=${id}; Path=${cookiePath(provider)}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`,
  );
}

function clearStateCookie(reply: FastifyReply, provider: string): void {
  reply.header("set-cookie", `${STATE_COOKIE}=; Path=${cookiePath(provider)}; Max-Age=0; HttpOnly; SameSite=Lax`);
}

function readCookie(request: FastifyRequest, name: string): string | null {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return null;
}
