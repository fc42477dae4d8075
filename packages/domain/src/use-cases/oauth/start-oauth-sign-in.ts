import type { OAuthRepository } from "./ports.js";

/** Where the browser goes to sign in with `provider`; the current query is passed on (spec section 7). */
export class StartOAuthSignInUseCase {
  constructor(private readonly oauth: OAuthRepository) {}

  execute(provider: string, query: Record<string, string> = {}): string {
    return this.oauth.authenticationUrl(provider, query);
  }
}
