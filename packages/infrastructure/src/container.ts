import "reflect-metadata";
import { container as rootContainer, instanceCachingFactory, type DependencyContainer, type InjectionToken } from "tsyringe";
import type { KyInstance } from "ky";
import {
  BulkAnnotateUseCase,
  ClearRecordUseCase,
  DiscardRecordUseCase,
  GetAgentsUseCase,
  GetRecordsByCriteriaUseCase,
  ListDatasetsUseCase,
  LoadDatasetWithSettingsUseCase,
  LoadRecordsUseCase,
  LoadUserUseCase,
  RegenerateApiKeyUseCase,
  SaveDraftUseCase,
  SignInUseCase,
  SignOutUseCase,
  SubmitRecordUseCase,
  TOKENS,
  RESERVATION_TOKENS,
  type ReservationRepository,
  CreateDatasetUseCase,
  DeleteDatasetUseCase,
  GetDatasetCreationUseCase,
  GetDatasetMetricsUseCase,
  GetFirstRecordFromHubUseCase,
  GetJobStatusUseCase,
  GetMetadataMetricsUseCase,
  GetWorkspacesUseCase,
  UpdateDatasetSettingUseCase,
  UpdateFieldSettingUseCase,
  UpdateMetadataSettingUseCase,
  UpdateQuestionSettingUseCase,
  UpdateVectorSettingUseCase,
  type Clock,
  type HubRepository,
  type JobRepository,
  type WorkspaceRepository,
  type AgentRepository,
  type AuthRepository,
  type DatasetManagementRepository,
  type DatasetRepository,
  type FieldRepository,
  type MetadataRepository,
  type NotificationPort,
  type QuestionRepository,
  type RecordRepository,
  type ResponseRepository,
  type TokenStore,
  type UserRepository,
  type VectorRepository,
} from "@tessera/domain";
import { HttpCache } from "./http/cache.js";
import { HttpHubRepository, HttpJobRepository, HttpWorkspaceRepository, systemClock } from "./repositories/more-repositories.js";
import { HttpRecordRepository, HttpResponseRepository } from "./repositories/record-repository.js";
import {
  HttpFieldRepository,
  HttpMetadataRepository,
  HttpQuestionRepository,
  HttpVectorRepository,
} from "./repositories/settings-repositories.js";
import { createHttpClient, type HttpClientOptions } from "./http/http-client.js";
import { LocalTokenStore, MemoryStorage, ProductStorage, type KeyValueStorage } from "./storage/local-storage.js";
import { HttpAuthRepository } from "./repositories/auth-repository.js";
import { HttpUserRepository } from "./repositories/user-repository.js";
import { HttpDatasetRepository } from "./repositories/dataset-repository.js";
import { registerShell } from "./shell-bindings.js";
import { registerReservations } from "./reservation-bindings.js";
import { registerOAuth } from "./oauth-bindings.js";
import { registerSettingsExtra } from "./settings-extra-bindings.js";
import { registerOffline, type OfflineOptions } from "./offline-bindings.js";
import { registerTransfer, type SaveFile } from "./transfer-bindings.js";
import { registerReview } from "./review-bindings.js";

export const INFRA_TOKENS = {
  HttpClient: Symbol.for("tessera.HttpClient"),
  ProductStorage: Symbol.for("tessera.ProductStorage"),
  HttpCache: Symbol.for("tessera.HttpCache"),
} as const;

export interface CompositionOptions extends HttpClientOptions, OfflineOptions {
  storage?: KeyValueStorage;
  /** Where failed requests raise toasts; the web app passes its toast store, tests a fake. */
  notifications?: NotificationPort;
  /** Milliseconds clock of the HTTP cache (tests pass a fake). */
  now?: () => number;
  /** The external datasets server (Hub dataset viewer API); default https://datasets-server.huggingface.co. */
  hubUrl?: string;
  /** Clock of waiting use cases (import polling); tests pass a fake. */
  clock?: Clock;
  /** Where downloaded files go (the browser's downloads by default; tests pass a fake). */
  saveFile?: SaveFile;
}

/**
 * The composition root: the one place where ports meet adapters and use cases get their ports.
 * Returns a child container so that tests can build as many independent apps as they like.
 */
export function createContainer(options: CompositionOptions = {}): DependencyContainer {
  const c = rootContainer.createChildContainer();
  const storage = options.storage ?? (typeof localStorage !== "undefined" ? localStorage : new MemoryStorage());

  c.registerInstance(INFRA_TOKENS.ProductStorage, new ProductStorage(storage));
  c.register(TOKENS.TokenStore, { useFactory: instanceCachingFactory((d) => new LocalTokenStore(d.resolve(INFRA_TOKENS.ProductStorage))) });
  const tokenStore = c.resolve<TokenStore>(TOKENS.TokenStore);
  const cache = options.cache ?? new HttpCache(options.now);
  c.registerInstance(INFRA_TOKENS.HttpCache, cache);
  if (options.notifications) c.registerInstance(TOKENS.Notifications, options.notifications);
  c.registerInstance(INFRA_TOKENS.HttpClient, createHttpClient(tokenStore, { ...options, cache }));
  c.registerInstance(TOKENS.TokenStore, tokenStore);

  const http = (d: DependencyContainer) => d.resolve<KyInstance>(INFRA_TOKENS.HttpClient);
  c.register(TOKENS.AuthRepository, { useFactory: instanceCachingFactory((d) => new HttpAuthRepository(http(d))) });
  c.register(TOKENS.UserRepository, { useFactory: instanceCachingFactory((d) => new HttpUserRepository(http(d))) });
  c.register(TOKENS.DatasetRepository, { useFactory: instanceCachingFactory((d) => new HttpDatasetRepository(http(d))) });

  c.register(SignInUseCase, {
    useFactory: instanceCachingFactory(
      (d) =>
        new SignInUseCase(
          d.resolve<AuthRepository>(TOKENS.AuthRepository),
          d.resolve<TokenStore>(TOKENS.TokenStore),
          d.resolve<UserRepository>(TOKENS.UserRepository),
        ),
    ),
  });
  c.register(SignOutUseCase, {
    useFactory: instanceCachingFactory(
      (d) =>
        new SignOutUseCase(
          d.resolve<TokenStore>(TOKENS.TokenStore),
          d.resolve<ReservationRepository>(RESERVATION_TOKENS.ReservationRepository),
        ),
    ),
  });
  c.register(LoadUserUseCase, {
    useFactory: instanceCachingFactory(
      (d) => new LoadUserUseCase(d.resolve<TokenStore>(TOKENS.TokenStore), d.resolve<UserRepository>(TOKENS.UserRepository)),
    ),
  });
  c.register(RegenerateApiKeyUseCase, {
    useFactory: instanceCachingFactory((d) => new RegenerateApiKeyUseCase(d.resolve<HttpUserRepository>(TOKENS.UserRepository))),
  });
  c.register(ListDatasetsUseCase, {
    useFactory: instanceCachingFactory((d) => new ListDatasetsUseCase(d.resolve<DatasetRepository>(TOKENS.DatasetRepository))),
  });
  registerShell(c, http);
  registerReservations(c, http);
  registerOAuth(c, http, options);
  registerAnnotation(c, http);
  registerDatasets(c, http, options);
  registerSettingsExtra(c, http, options);
  registerOffline(c, options, cache);
  registerTransfer(c, http, options);
  registerReview(c, http);
  return c;
}

/** Annotation and dataset-settings repositories and use cases. */
function registerAnnotation(c: DependencyContainer, http: (d: DependencyContainer) => KyInstance): void {
  const single = <T>(token: symbol, make: (d: DependencyContainer) => T) => c.register(token, { useFactory: instanceCachingFactory(make) });
  single(TOKENS.DatasetManagementRepository, (d) => d.resolve<DatasetRepository>(TOKENS.DatasetRepository) as HttpDatasetRepository);
  const records = (d: DependencyContainer) => new HttpRecordRepository(http(d));
  single(TOKENS.RecordRepository, records);
  single(TOKENS.AgentRepository, records);
  single(TOKENS.ResponseRepository, (d) => new HttpResponseRepository(http(d)));
  single(TOKENS.QuestionRepository, (d) => new HttpQuestionRepository(http(d)));
  single(TOKENS.FieldRepository, (d) => new HttpFieldRepository(http(d)));
  single(TOKENS.MetadataRepository, (d) => new HttpMetadataRepository(http(d)));
  single(TOKENS.VectorRepository, (d) => new HttpVectorRepository(http(d)));

  const r = <T>(d: DependencyContainer, token: symbol) => d.resolve<T>(token);
  const useCase = <T>(cls: InjectionToken<T>, make: (d: DependencyContainer) => T) =>
    c.register(cls, { useFactory: instanceCachingFactory(make) });
  useCase(
    GetRecordsByCriteriaUseCase,
    (d) =>
      new GetRecordsByCriteriaUseCase(
        r<RecordRepository>(d, TOKENS.RecordRepository),
        r<QuestionRepository>(d, TOKENS.QuestionRepository),
        r<FieldRepository>(d, TOKENS.FieldRepository),
      ),
  );
  useCase(LoadRecordsUseCase, (d) => new LoadRecordsUseCase(d.resolve(GetRecordsByCriteriaUseCase)));
  useCase(SubmitRecordUseCase, (d) => new SubmitRecordUseCase(r<ResponseRepository>(d, TOKENS.ResponseRepository)));
  useCase(SaveDraftUseCase, (d) => new SaveDraftUseCase(r<ResponseRepository>(d, TOKENS.ResponseRepository)));
  useCase(DiscardRecordUseCase, (d) => new DiscardRecordUseCase(r<ResponseRepository>(d, TOKENS.ResponseRepository)));
  useCase(ClearRecordUseCase, (d) => new ClearRecordUseCase(r<ResponseRepository>(d, TOKENS.ResponseRepository)));
  useCase(
    BulkAnnotateUseCase,
    (d) => new BulkAnnotateUseCase(r<ResponseRepository>(d, TOKENS.ResponseRepository), d.resolve(GetRecordsByCriteriaUseCase)),
  );
  useCase(GetAgentsUseCase, (d) => new GetAgentsUseCase(r<AgentRepository>(d, TOKENS.AgentRepository)));
  useCase(
    LoadDatasetWithSettingsUseCase,
    (d) =>
      new LoadDatasetWithSettingsUseCase(
        r<DatasetManagementRepository>(d, TOKENS.DatasetManagementRepository),
        r<QuestionRepository>(d, TOKENS.QuestionRepository),
        r<FieldRepository>(d, TOKENS.FieldRepository),
        r<VectorRepository>(d, TOKENS.VectorRepository),
        r<MetadataRepository>(d, TOKENS.MetadataRepository),
      ),
  );
}

/** Dataset settings, creation from the Hub, jobs and workspaces. */
function registerDatasets(c: DependencyContainer, http: (d: DependencyContainer) => KyInstance, options: CompositionOptions): void {
  const single = <T>(token: symbol, make: (d: DependencyContainer) => T) => c.register(token, { useFactory: instanceCachingFactory(make) });
  single(TOKENS.WorkspaceRepository, (d) => new HttpWorkspaceRepository(http(d)));
  single(TOKENS.JobRepository, (d) => new HttpJobRepository(http(d)));
  single(TOKENS.HubRepository, () => new HttpHubRepository(options.hubUrl ?? "https://datasets-server.huggingface.co", options.fetch));
  c.registerInstance(TOKENS.Clock, options.clock ?? systemClock);

  const r = <T>(d: DependencyContainer, token: symbol) => d.resolve<T>(token);
  const useCase = <T>(cls: InjectionToken<T>, make: (d: DependencyContainer) => T) =>
    c.register(cls, { useFactory: instanceCachingFactory(make) });
  const management = (d: DependencyContainer) => r<DatasetManagementRepository>(d, TOKENS.DatasetManagementRepository);
  useCase(UpdateDatasetSettingUseCase, (d) => new UpdateDatasetSettingUseCase(management(d)));
  useCase(UpdateQuestionSettingUseCase, (d) => new UpdateQuestionSettingUseCase(r<QuestionRepository>(d, TOKENS.QuestionRepository)));
  useCase(UpdateFieldSettingUseCase, (d) => new UpdateFieldSettingUseCase(r<FieldRepository>(d, TOKENS.FieldRepository)));
  useCase(UpdateMetadataSettingUseCase, (d) => new UpdateMetadataSettingUseCase(r<MetadataRepository>(d, TOKENS.MetadataRepository)));
  useCase(UpdateVectorSettingUseCase, (d) => new UpdateVectorSettingUseCase(r<VectorRepository>(d, TOKENS.VectorRepository)));
  useCase(DeleteDatasetUseCase, (d) => new DeleteDatasetUseCase(management(d)));
  useCase(GetDatasetMetricsUseCase, (d) => new GetDatasetMetricsUseCase(management(d)));
  useCase(GetMetadataMetricsUseCase, (d) => new GetMetadataMetricsUseCase(r<MetadataRepository>(d, TOKENS.MetadataRepository)));
  useCase(GetWorkspacesUseCase, (d) => new GetWorkspacesUseCase(r<WorkspaceRepository>(d, TOKENS.WorkspaceRepository)));
  useCase(GetJobStatusUseCase, (d) => new GetJobStatusUseCase(r<JobRepository>(d, TOKENS.JobRepository)));
  useCase(GetDatasetCreationUseCase, (d) => new GetDatasetCreationUseCase(r<HubRepository>(d, TOKENS.HubRepository)));
  useCase(GetFirstRecordFromHubUseCase, (d) => new GetFirstRecordFromHubUseCase(r<HubRepository>(d, TOKENS.HubRepository)));
  useCase(
    CreateDatasetUseCase,
    (d) =>
      new CreateDatasetUseCase(
        management(d),
        r<DatasetRepository>(d, TOKENS.DatasetRepository),
        r<WorkspaceRepository>(d, TOKENS.WorkspaceRepository),
        r<FieldRepository>(d, TOKENS.FieldRepository),
        r<QuestionRepository>(d, TOKENS.QuestionRepository),
        r<MetadataRepository>(d, TOKENS.MetadataRepository),
        r<Clock>(d, TOKENS.Clock),
      ),
  );
}
