import type { OAuthProvider, OAuthRepository } from "./ports.js";

/** The configured OAuth providers; a failure to load them yields an empty list (spec section 8). */
export class LoadOAuthProvidersUseCase {
  constructor(private readonly oauth: OAuthRepository) {}

  async execute(): Promise<OAuthProvider[]> {
    try {
      return await this.oauth.getProviders();
    } catch {
      return [];
    }
  }
}
