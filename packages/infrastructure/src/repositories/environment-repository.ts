import type { KyInstance } from "ky";
import { ErrorCode, RepositoryError, type Environment, type EnvironmentRepository } from "@tessera/domain";
import { statusOf } from "../http/http-client.js";

interface BackendSettings {
  argilla?: { show_huggingface_space_persistent_storage_warning?: boolean | null } | null;
  huggingface?: {
    space_id: string;
    space_title: string;
    space_subdomain: string;
    space_host: string;
    space_repo_name: string;
    space_author_name: string;
    space_persistent_storage_enabled: boolean;
  } | null;
}

export class HttpEnvironmentRepository implements EnvironmentRepository {
  constructor(private readonly http: KyInstance) {}

  async getEnvironment(): Promise<Environment> {
    try {
      const s = await this.http.get("v1/settings").json<BackendSettings>();
      const hf = s.huggingface ?? null;
      return {
        showPersistentStorageWarning: s.argilla?.show_huggingface_space_persistent_storage_warning === true,
        hostedSpace: hf && {
          id: hf.space_id,
          title: hf.space_title,
          subdomain: hf.space_subdomain,
          host: hf.space_host,
          repoName: hf.space_repo_name,
          authorName: hf.space_author_name,
          persistentStorageEnabled: hf.space_persistent_storage_enabled,
        },
      };
    } catch (error) {
      throw new RepositoryError(ErrorCode.ERROR_FETCHING_ENVIRONMENT_SETTINGS, statusOf(error), { cause: error });
    }
  }
}
