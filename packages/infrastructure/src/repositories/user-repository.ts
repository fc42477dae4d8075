import type { KyInstance } from "ky";
import { ErrorCode, RepositoryError, User, type Role, type ApiKeyRepository, type UserRepository } from "@tessera/domain";
import { statusOf } from "../http/http-client.js";

export interface BackendUser {
  id: string;
  username: string;
  first_name: string;
  last_name: string | null;
  role: Role;
  api_key?: string;
}

export class HttpUserRepository implements UserRepository, ApiKeyRepository {
  constructor(private readonly http: KyInstance) {}

  async getMe(): Promise<User> {
    try {
      const u = await this.http.get("v1/me").json<BackendUser>();
      return new User({
        id: u.id,
        username: u.username,
        firstName: u.first_name,
        lastName: u.last_name,
        role: u.role,
        apiKey: u.api_key ?? null,
      });
    } catch (error) {
      throw new RepositoryError(ErrorCode.ERROR_FETCHING_USER, statusOf(error), { cause: error });
    }
  }

  async regenerateApiKey(userId: string): Promise<string> {
    try {
      return (await this.http.post(`v1/users/${encodeURIComponent(userId)}/api-key`).json<BackendUser>()).api_key!;
    } catch (error) {
      throw new RepositoryError(ErrorCode.ERROR_REGENERATING_API_KEY, statusOf(error), { cause: error });
    }
  }
}
