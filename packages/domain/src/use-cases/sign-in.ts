import type { AuthRepository, TokenStore } from "../ports/auth-repository.js";
import type { UserRepository } from "../ports/user-repository.js";
import type { User } from "../entities/user.js";

export class SignInUseCase {
  constructor(
    private readonly auth: AuthRepository,
    private readonly tokens: TokenStore,
    private readonly users: UserRepository,
  ) {}

  async execute(username: string, password: string): Promise<User> {
    const token = await this.auth.signIn(username.trim(), password);
    this.tokens.set(token);
    try {
      return await this.users.getMe();
    } catch (error) {
      this.tokens.clear();
      throw error;
    }
  }
}
