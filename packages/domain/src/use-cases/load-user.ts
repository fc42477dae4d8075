import type { TokenStore } from "../ports/auth-repository.js";
import type { UserRepository } from "../ports/user-repository.js";
import type { User } from "../entities/user.js";
import { RepositoryError } from "../errors/error-codes.js";

/** Loads the signed-in user; a 401 logs the user out (spec section 4) and yields null. */
export class LoadUserUseCase {
  constructor(
    private readonly tokens: TokenStore,
    private readonly users: UserRepository,
  ) {}

  isLoggedIn(): boolean {
    return this.tokens.get() !== null;
  }

  async execute(): Promise<User | null> {
    if (!this.isLoggedIn()) return null;
    try {
      return await this.users.getMe();
    } catch (error) {
      if (error instanceof RepositoryError && error.status === 401) {
        this.tokens.clear();
        return null;
      }
      throw error;
    }
  }
}
