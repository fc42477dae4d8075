import type { TokenStore } from "../ports/auth-repository.js";

export class SignOutUseCase {
  constructor(private readonly tokens: TokenStore) {}
  execute(): void { this.tokens.clear(); }
}
