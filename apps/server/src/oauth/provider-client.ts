import * as oidc from "openid-client";
import type { OAuthProviderConfig } from "./oauth-config.js";
import type { PendingAuthorization } from "./state-store.js";

/** The claims Tessera reads from the provider (userinfo merged over the ID token). */
export interface ProviderIdentity {
  subject: string;
  username: string | null;
  name: string | null;
  /** HF `orgs` claim: organisations the user granted, with their role. */
  orgs: { name: string | null; preferredUsername: string | null; roleInOrg: string | null }[];
}

/** The provider answered with an OAuth error (refused code, bad client, userinfo refused...). */
export class ProviderRefusedError extends Error {}
/** The provider could not be reached or answered something that is not OAuth. */
export class ProviderUnavailableError extends Error {}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/**
 * A client for one OpenID Connect provider through `openid-client`: discovery (cached), the
 * authorization URL with PKCE (S256) and nonce, the code exchange and userinfo.
 */
export class OAuthProviderClient {
  private configuration: Promise<oidc.Configuration> | null = null;

  constructor(readonly config: OAuthProviderConfig) {}

  private discover(): Promise<oidc.Configuration> {
    if (!this.configuration) {
      const issuer = new URL(this.config.issuerUrl);
      // Plain http is only accepted for a provider on this machine (the local test provider).
      const insecure = issuer.protocol === "http:" && LOOPBACK.has(issuer.hostname);
      const auth = this.config.clientSecret ? oidc.ClientSecretBasic(this.config.clientSecret) : oidc.None();
      this.configuration = oidc
        .discovery(issuer, this.config.clientId, undefined, auth, {
          timeout: 15,
          ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
        })
        .catch((error: unknown) => {
          this.configuration = null;
          throw new ProviderUnavailableError(`The OAuth provider '${this.config.name}' could not be reached`, { cause: error });
        });
    }
    return this.configuration;
  }

  /** The authorize URL for a new request: state, PKCE challenge, nonce and extra allowed parameters. */
  async authorizationUrl(input: {
    state: string;
    codeVerifier: string;
    nonce: string;
    redirectUri: string;
    extra: Record<string, string>;
  }): Promise<URL> {
    const configuration = await this.discover();
    return oidc.buildAuthorizationUrl(configuration, {
      ...input.extra,
      response_type: "code",
      redirect_uri: input.redirectUri,
      scope: this.config.scope,
      state: input.state,
      nonce: input.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(input.codeVerifier),
      code_challenge_method: "S256",
    });
  }

  /** Exchanges the code of the callback (whose query is `callbackQuery`) and reads the user's identity. */
  async exchange(callbackQuery: URLSearchParams, pending: PendingAuthorization): Promise<ProviderIdentity> {
    const configuration = await this.discover();
    const currentUrl = new URL(pending.redirectUri);
    for (const [key, value] of callbackQuery) currentUrl.searchParams.append(key, value);
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: callbackQuery.get("state") ?? oidc.skipStateCheck,
        ...(pending.nonce ? { expectedNonce: pending.nonce } : {}),
      });
      const idClaims = tokens.claims();
      const userinfo = await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims?.sub ?? oidc.skipSubjectCheck);
      const claims: Record<string, unknown> = { ...(idClaims ?? {}), ...userinfo };
      return toIdentity(claims);
    } catch (error) {
      if (error instanceof ProviderRefusedError) throw error;
      if (
        error instanceof oidc.ResponseBodyError ||
        error instanceof oidc.AuthorizationResponseError ||
        error instanceof oidc.WWWAuthenticateChallengeError
      ) {
        const e = error as { error?: string; error_description?: string };
        throw new ProviderRefusedError(
          `The OAuth provider refused the sign-in: ${[e.error, e.error_description].filter(Boolean).join(": ")}`,
          { cause: error },
        );
      }
      if (error instanceof oidc.ClientError) {
        throw new ProviderRefusedError(`The OAuth provider's answer was not accepted: ${error.message}`, { cause: error });
      }
      throw new ProviderUnavailableError(`The OAuth provider '${this.config.name}' could not be reached`, { cause: error });
    }
  }
}

const str = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);

function toIdentity(claims: Record<string, unknown>): ProviderIdentity {
  const subject = str(claims.sub);
  if (!subject) throw new ProviderRefusedError("The OAuth provider did not return a subject for the user");
  const orgs = Array.isArray(claims.orgs) ? claims.orgs : [];
  return {
    subject,
    username: str(claims.preferred_username),
    name: str(claims.name),
    orgs: orgs
      .filter((o): o is Record<string, unknown> => typeof o === "object" && o !== null)
      .map((o) => ({
        name: str(o.name),
        preferredUsername: str(o.preferred_username),
        roleInOrg: str(o.roleInOrg),
      })),
  };
}
