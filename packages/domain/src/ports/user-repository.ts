import type { User } from "../entities/user.js";

export interface UserRepository {
  /** GET /v1/me; throws RepositoryError(ERROR_FETCHING_USER, 401) when the token is no longer valid. */
  getMe(): Promise<User>;
}
