import { instanceCachingFactory, type DependencyContainer } from "tsyringe";
import type { KyInstance } from "ky";
import {
  HasDatasetResponsesUseCase,
  SETTINGS_EXTRA_TOKENS,
  TOKENS,
  type DatasetActivityRepository,
  type HubDatasetInfo,
  type HubRepository,
  type HubSettingsRepository,
} from "@tessera/domain";
import { HttpHubRepository } from "./repositories/more-repositories.js";

const DEFAULT_HUB_URL = "https://datasets-server.huggingface.co";

type Bucket = { submitted?: number; discarded?: number; draft?: number };

/** GET /v1/datasets/{id}/users/progress, summed over users and statuses. */
export class HttpDatasetActivityRepository implements DatasetActivityRepository {
  constructor(private readonly http: KyInstance) {}
  async countResponses(datasetId: string): Promise<number> {
    const body = await this.http
      .get(`v1/datasets/${encodeURIComponent(datasetId)}/users/progress`)
      .json<{ users?: Array<{ completed?: Bucket; pending?: Bucket }> }>();
    const sum = (b: Bucket | undefined) => (b?.submitted ?? 0) + (b?.discarded ?? 0) + (b?.draft ?? 0);
    return (body.users ?? []).reduce((n, u) => n + sum(u.completed) + sum(u.pending), 0);
  }
}

/** GET /v1/hub/settings (public): the dataset viewer URL configured on the server. */
export class HttpHubSettingsRepository implements HubSettingsRepository {
  constructor(private readonly http: KyInstance) {}
  async getDatasetsServerUrl(): Promise<string> {
    return (await this.http.get("v1/hub/settings").json<{ datasets_server_url: string }>()).datasets_server_url;
  }
}

/**
 * The Hub repository of the web app: it asks the server once which dataset viewer to call
 * (GET /v1/hub/settings) and then calls that viewer directly from the browser. When the server
 * cannot tell, the public viewer is used.
 */
export class ServerConfiguredHubRepository implements HubRepository {
  private target: Promise<HubRepository> | null = null;
  constructor(
    private readonly settings: HubSettingsRepository,
    private readonly fetchFn?: typeof fetch,
  ) {}

  private hub(): Promise<HubRepository> {
    this.target ??= this.settings
      .getDatasetsServerUrl()
      .catch(() => DEFAULT_HUB_URL)
      .then((url) => new HttpHubRepository(url || DEFAULT_HUB_URL, this.fetchFn));
    return this.target;
  }

  async getDatasetInfo(repoId: string): Promise<HubDatasetInfo> {
    return (await this.hub()).getDatasetInfo(repoId);
  }
  async getFirstRow(repoId: string, subset: string, split: string): Promise<{ [column: string]: unknown }> {
    return (await this.hub()).getFirstRow(repoId, subset, split);
  }
}

/**
 * Part of the composition root (called by createContainer after the dataset bindings): settings
 * and creation extras. Without an explicit `hubUrl`, the Hub repository follows the server's setting.
 */
export function registerSettingsExtra(
  c: DependencyContainer,
  http: (d: DependencyContainer) => KyInstance,
  options: { hubUrl?: string; fetch?: typeof fetch },
): void {
  c.register(SETTINGS_EXTRA_TOKENS.DatasetActivityRepository, {
    useFactory: instanceCachingFactory((d) => new HttpDatasetActivityRepository(http(d))),
  });
  c.register(SETTINGS_EXTRA_TOKENS.HubSettingsRepository, {
    useFactory: instanceCachingFactory((d) => new HttpHubSettingsRepository(http(d))),
  });
  if (options.hubUrl === undefined) {
    c.register(TOKENS.HubRepository, {
      useFactory: instanceCachingFactory(
        (d) =>
          new ServerConfiguredHubRepository(d.resolve<HubSettingsRepository>(SETTINGS_EXTRA_TOKENS.HubSettingsRepository), options.fetch),
      ),
    });
  }
  c.register(HasDatasetResponsesUseCase, {
    useFactory: instanceCachingFactory(
      (d) => new HasDatasetResponsesUseCase(d.resolve<DatasetActivityRepository>(SETTINGS_EXTRA_TOKENS.DatasetActivityRepository)),
    ),
  });
}
