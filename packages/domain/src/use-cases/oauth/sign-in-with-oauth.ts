import type { TokenStore } from "../../ports/auth-repository.js";
import type { UserRepository } from "../../ports/user-repository.js";
import type { User } from "../../entities/user.js";
import { ErrorCode, RepositoryError } from "../../errors/error-codes.js";
import type { OAuthRepository } from "./ports.js";

export interface OAuthSignInResult {
  user: User;
  redirectTo: string | null;
}

/**
 * Finishes an OAuth sign-in on the callback page: exchanges the provider's query for a token, stores
 * it and loads the user. Any failure is ERROR_FETCHING_OAUTH_ACCESS_TOKEN and leaves no token behind.
 */
export class SignInWithOAuthUseCase {
  constructor(
    private readonly oauth: OAuthRepository,
    private readonly tokens: TokenStore,
    private readonly users: UserRepository,
  ) {}

  async execute(provider: string, query: Record<string, string>): Promise<OAuthSignInResult> {
    const { accessToken, redirectTo } = await this.oauth.getAccessToken(provider, query);
    this.tokens.set(accessToken);
    try {
      return { user: await this.users.getMe(), redirectTo };
    } catch (error) {
      this.tokens.clear();
      throw new RepositoryError(ErrorCode.ERROR_FETCHING_OAUTH_ACCESS_TOKEN, undefined, { cause: error });
    }
  }
}
