import type { KyInstance } from "ky";
import { ErrorCode, RepositoryError, type MyWorkspacesRepository, type WorkspaceSummary } from "@tessera/domain";
import { statusOf } from "../http/http-client.js";

export class HttpMyWorkspacesRepository implements MyWorkspacesRepository {
  constructor(private readonly http: KyInstance) {}

  async listMine(): Promise<WorkspaceSummary[]> {
    try {
      const result = await this.http.get("v1/me/workspaces").json<{ items: { id: string; name: string }[] }>();
      return result.items.map((w) => ({ id: w.id, name: w.name }));
    } catch (error) {
      throw new RepositoryError(ErrorCode.ERROR_FETCHING_WORKSPACES, statusOf(error), { cause: error });
    }
  }
}
