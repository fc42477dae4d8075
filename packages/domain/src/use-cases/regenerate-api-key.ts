import type { User } from "../entities/user.js";
import type { ApiKeyRepository } from "../ports/user-repository.js";

/**
 * Rotates the signed-in user's API key: the server keeps only a digest, so a new key is the only way
 * to see one again; the old key stops working at once. Returns the user with the new key (shown once).
 */
export class RegenerateApiKeyUseCase {
  constructor(private readonly keys: ApiKeyRepository) {}

  async execute(user: User): Promise<User> {
    return user.withApiKey(await this.keys.regenerateApiKey(user.id));
  }
}
