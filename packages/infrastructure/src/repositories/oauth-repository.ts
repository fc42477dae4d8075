import type { KyInstance } from "ky";
import { ErrorCode, RepositoryError, type OAuthProvider, type OAuthRepository, type OAuthToken } from "@tessera/domain";
import { statusOf } from "../http/http-client.js";

/** OAuth sign-in through the server's /v1/oauth2 routes (public: no credentials are sent). */
export class HttpOAuthRepository implements OAuthRepository {
  /** `apiRoot`: absolute URL of the API base path, e.g. https://host/api (for browser navigation). */
  constructor(
    private readonly http: KyInstance,
    private readonly apiRoot: string,
  ) {}

  async getProviders(): Promise<OAuthProvider[]> {
    try {
      const body = await this.http.get("v1/oauth2/providers").json<{ items?: { name?: unknown }[] }>();
      return (body.items ?? []).filter((p): p is { name: string } => typeof p.name === "string").map((p) => ({ name: p.name }));
    } catch (error) {
      throw new RepositoryError(ErrorCode.ERROR_FETCHING_OAUTH_PROVIDERS, statusOf(error), { cause: error });
    }
  }

  async getAccessToken(provider: string, query: Record<string, string>): Promise<OAuthToken> {
    try {
      const body = await this.http
        .get(`v1/oauth2/providers/${encodeURIComponent(provider)}/access-token`, { searchParams: query })
        .json<{ access_token: string; redirect_to?: string | null }>();
      if (typeof body.access_token !== "string") throw new Error("no access_token in the answer");
      return { accessToken: body.access_token, redirectTo: typeof body.redirect_to === "string" ? body.redirect_to : null };
    } catch (error) {
      throw new RepositoryError(ErrorCode.ERROR_FETCHING_OAUTH_ACCESS_TOKEN, statusOf(error), { cause: error });
    }
  }

  authenticationUrl(provider: string, query: Record<string, string>): string {
    const search = new URLSearchParams(query).toString();
    return `${this.apiRoot}/v1/oauth2/providers/${encodeURIComponent(provider)}/authentication${search ? `?${search}` : ""}`;
  }
}
