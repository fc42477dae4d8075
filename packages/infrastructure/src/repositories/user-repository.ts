import type { KyInstance } from "ky";
import { ErrorCode, RepositoryError, User, type Role, type UserRepository } from "@tessera/domain";
import { statusOf } from "../http/http-client.js";

export interface BackendUser { id: string; username: string; first_name: string; last_name: string | null; role: Role; api_key: string }

export class HttpUserRepository implements UserRepository {
  constructor(private readonly http: KyInstance) {}

  async getMe(): Promise<User> {
    try {
      const u = await this.http.get("v1/me").json<BackendUser>();
      return new User({ id: u.id, username: u.username, firstName: u.first_name, lastName: u.last_name, role: u.role, apiKey: u.api_key });
    } catch (error) {
      throw new RepositoryError(ErrorCode.ERROR_FETCHING_USER, statusOf(error), { cause: error });
    }
  }
}
