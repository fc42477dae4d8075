import type { User } from "../entities/user.js";

export interface UserRepository {
  /** GET /v1/me; throws RepositoryError(ERROR_FETCHING_USER, 401) when the token is no longer valid. */
  getMe(): Promise<User>;
}

export interface ApiKeyRepository {
  /** POST /v1/users/{id}/api-key: a new key for the user (the old one stops at once); the key is shown this once. */
  regenerateApiKey(userId: string): Promise<string>;
}
