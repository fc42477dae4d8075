/** Ports of OAuth sign-in (issue 8): the providers the server offers and the code exchange. */

export interface OAuthProvider {
  name: string;
}

export interface OAuthToken {
  accessToken: string;
  /** Local path the sign-in was started from, when the server remembered one. */
  redirectTo: string | null;
}

export interface OAuthRepository {
  /** GET /v1/oauth2/providers (public); throws ERROR_FETCHING_OAUTH_PROVIDERS. */
  getProviders(): Promise<OAuthProvider[]>;
  /** GET /v1/oauth2/providers/{provider}/access-token with the callback's query; throws ERROR_FETCHING_OAUTH_ACCESS_TOKEN. */
  getAccessToken(provider: string, query: Record<string, string>): Promise<OAuthToken>;
  /** The URL the browser navigates to for api/v1/oauth2/providers/{provider}/authentication, with `query`. */
  authenticationUrl(provider: string, query: Record<string, string>): string;
}
