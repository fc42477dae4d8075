type Env = Readonly<Record<string, string | undefined>>;

/** One configured OAuth / OpenID Connect provider. */
export interface OAuthProviderConfig {
  /** The provider's name in the API paths (`huggingface`). */
  name: string;
  clientId: string;
  clientSecret: string | null;
  /** Space-separated scopes; always contains `openid profile`. */
  scope: string;
  /** Issuer URL whose `/.well-known/openid-configuration` is read (HF: https://huggingface.co). */
  issuerUrl: string;
  /** Fixed redirect URI; when null it is derived from the public URL or the request. */
  redirectUri: string | null;
}

export interface OAuthConfig {
  providers: OAuthProviderConfig[];
  /** Names of existing workspaces that new OAuth users join. */
  workspaces: string[];
  /** Link an existing local account with the same username on first OAuth sign-in (off by default). */
  linkExistingUsers: boolean;
  /** Public base URL of the app (e.g. https://owner-name.hf.space); null derives it from the request. */
  publicUrl: string | null;
  /** Lifetime of a pending authorization request (state), in seconds. */
  stateTtlSeconds: number;
}

/** The hosted space (Hugging Face Spaces) the server runs in, from the variables the Hub injects. */
export interface HostedSpace {
  spaceId: string;
  title: string | null;
  subdomain: string | null;
  host: string | null;
  repoName: string | null;
  authorName: string | null;
  creatorUserId: string | null;
  persistentStorageEnabled: boolean;
  /** ARGILLA_SHOW_HUGGINGFACE_SPACE_PERSISTENT_STORAGE_WARNING (default true). */
  showPersistentStorageWarning: boolean;
}

const nonEmpty = (value: string | undefined): string | null => (value && value.trim() ? value.trim() : null);

export function parseBoolean(value: string | undefined, fallback: boolean): boolean {
  const v = value?.trim().toLowerCase();
  if (!v) return fallback;
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  return fallback;
}

/** "Running on a hosted space" means SPACE_ID is set (hub.md section 4). */
export function loadHostedSpace(env: Env): HostedSpace | null {
  const spaceId = nonEmpty(env.SPACE_ID);
  if (!spaceId) return null;
  const [owner, repo] = spaceId.split("/");
  return {
    spaceId,
    title: nonEmpty(env.SPACE_TITLE),
    subdomain: nonEmpty(env.SPACE_SUBDOMAIN),
    host: nonEmpty(env.SPACE_HOST),
    repoName: nonEmpty(env.SPACE_REPO_NAME) ?? nonEmpty(repo),
    authorName: nonEmpty(env.SPACE_AUTHOR_NAME) ?? nonEmpty(owner),
    creatorUserId: nonEmpty(env.SPACE_CREATOR_USER_ID),
    // The Hub spells it PERSISTANT_STORAGE_ENABLED; accept the correct spelling too.
    persistentStorageEnabled: parseBoolean(env.PERSISTANT_STORAGE_ENABLED ?? env.PERSISTENT_STORAGE_ENABLED, false),
    showPersistentStorageWarning: parseBoolean(
      env.TESSERA_SHOW_HUGGINGFACE_SPACE_PERSISTENT_STORAGE_WARNING ?? env.ARGILLA_SHOW_HUGGINGFACE_SPACE_PERSISTENT_STORAGE_WARNING,
      true,
    ),
  };
}

const REQUIRED_SCOPES = ["openid", "profile"];

function normalizeScope(scope: string | null): string {
  const parts = (scope ?? "").split(/[\s,]+/).filter(Boolean);
  return [...new Set([...REQUIRED_SCOPES, ...parts])].join(" ");
}

/**
 * The Hugging Face provider, enabled when a client id is known. Explicit `OAUTH2_HUGGINGFACE_*`
 * variables (Argilla's names) win over the ones a Space injects (`OAUTH_CLIENT_ID`,
 * `OAUTH_CLIENT_SECRET`, `OAUTH_SCOPES`, `OPENID_PROVIDER_URL`).
 */
export function loadOAuthConfig(env: Env, space: HostedSpace | null = loadHostedSpace(env)): OAuthConfig {
  const providers: OAuthProviderConfig[] = [];
  const enabled = parseBoolean(env.TESSERA_OAUTH_ENABLED, true);
  const clientId = nonEmpty(env.OAUTH2_HUGGINGFACE_CLIENT_ID) ?? nonEmpty(env.OAUTH_CLIENT_ID);
  if (enabled && clientId) {
    providers.push({
      name: "huggingface",
      clientId,
      clientSecret: nonEmpty(env.OAUTH2_HUGGINGFACE_CLIENT_SECRET) ?? nonEmpty(env.OAUTH_CLIENT_SECRET),
      scope: normalizeScope(nonEmpty(env.OAUTH2_HUGGINGFACE_SCOPE) ?? nonEmpty(env.OAUTH_SCOPES)),
      issuerUrl: (
        nonEmpty(env.OAUTH2_HUGGINGFACE_OPENID_PROVIDER_URL) ??
        nonEmpty(env.OPENID_PROVIDER_URL) ??
        "https://huggingface.co"
      ).replace(/\/+$/, ""),
      redirectUri: nonEmpty(env.OAUTH2_HUGGINGFACE_REDIRECT_URI),
    });
  }
  const ttl = Number(env.TESSERA_OAUTH_STATE_TTL ?? 600);
  return {
    providers,
    workspaces: (env.TESSERA_OAUTH_WORKSPACES ?? "")
      .split(",")
      .map((w) => w.trim())
      .filter(Boolean),
    linkExistingUsers: parseBoolean(env.TESSERA_OAUTH_LINK_EXISTING_USERS, false),
    publicUrl: (nonEmpty(env.TESSERA_PUBLIC_URL) ?? (space?.host ? `https://${space.host}` : null))?.replace(/\/+$/, "") ?? null,
    stateTtlSeconds: Number.isFinite(ttl) && ttl > 0 ? Math.min(ttl, 3600) : 600,
  };
}
