import type { KyInstance } from "ky";
import { type AuthRepository, ErrorCode, RepositoryError } from "@tessera/domain";
import { statusOf } from "../http/http-client.js";

export class HttpAuthRepository implements AuthRepository {
  constructor(private readonly http: KyInstance) {}

  async signIn(username: string, password: string): Promise<string> {
    try {
      const body = new URLSearchParams({ username, password });
      const result = await this.http.post("v1/token", { body }).json<{ access_token: string }>();
      return result.access_token;
    } catch (error) {
      throw new RepositoryError(ErrorCode.ERROR_SIGNING_IN, statusOf(error), { cause: error });
    }
  }
}
