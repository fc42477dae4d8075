import { instanceCachingFactory, type DependencyContainer, type InjectionToken } from "tsyringe";
import {
  ClearOfflineAnswersUseCase,
  GetUnsentWorkUseCase,
  KeepFormDraftUseCase,
  ListQueuedAnswersUseCase,
  OFFLINE_TOKENS,
  QueueAnswerUseCase,
  ResolveQueuedAnswerUseCase,
  RestoreFormDraftUseCase,
  SendNextAnswerUseCase,
  TOKENS,
  type AnswerSyncRepository,
  type Clock,
  type FormDraftStore,
  type OutboxStore,
  type TokenStore,
} from "@tessera/domain";
import { createHttpClient, type HttpClientOptions } from "./http/http-client.js";
import type { HttpCache } from "./http/cache.js";
import { HttpAnswerSyncRepository } from "./offline/answer-sync-repository.js";
import { IndexedDbFormDraftStore, IndexedDbOutboxStore, OfflineDatabaseHandle } from "./offline/indexeddb-stores.js";
import { FallbackFormDraftStore, FallbackOutboxStore, OfflineStorageState } from "./offline/fallback-stores.js";

export interface OfflineOptions extends HttpClientOptions {
  /** The IndexedDB database name of offline answers (tests give each app its own). */
  offlineDatabase?: string;
}

/** Part of the composition root (called by createContainer): offline answers (outbox, kept forms) and their use cases. */
export function registerOffline(c: DependencyContainer, options: OfflineOptions, cache: HttpCache): void {
  const single = <T>(token: InjectionToken<T>, make: (d: DependencyContainer) => T) =>
    c.register(token, { useFactory: instanceCachingFactory(make) });
  const handle = new OfflineDatabaseHandle(options.offlineDatabase);
  // IndexedDB, or this page's memory when the browser cannot keep them (the annotator is told, see OfflineStorageState)
  const state = new OfflineStorageState();
  c.register(OfflineStorageState, { useValue: state });
  single(OFFLINE_TOKENS.OutboxStore, () => new FallbackOutboxStore(new IndexedDbOutboxStore(handle), state));
  single(OFFLINE_TOKENS.FormDraftStore, () => new FallbackFormDraftStore(new IndexedDbFormDraftStore(handle), state));
  // a quiet client: no failed-request toasts for answers that only have to wait
  single(
    OFFLINE_TOKENS.AnswerSyncRepository,
    (d) =>
      new HttpAnswerSyncRepository(
        createHttpClient(d.resolve<TokenStore>(TOKENS.TokenStore), { ...options, notifications: undefined, cache }),
      ),
  );
  const outbox = (d: DependencyContainer) => d.resolve<OutboxStore>(OFFLINE_TOKENS.OutboxStore);
  const drafts = (d: DependencyContainer) => d.resolve<FormDraftStore>(OFFLINE_TOKENS.FormDraftStore);
  const clock = (d: DependencyContainer) => d.resolve<Clock>(TOKENS.Clock);
  single(QueueAnswerUseCase, (d) => new QueueAnswerUseCase(outbox(d), drafts(d), clock(d)));
  single(
    SendNextAnswerUseCase,
    (d) => new SendNextAnswerUseCase(outbox(d), drafts(d), d.resolve<AnswerSyncRepository>(OFFLINE_TOKENS.AnswerSyncRepository)),
  );
  single(ResolveQueuedAnswerUseCase, (d) => new ResolveQueuedAnswerUseCase(outbox(d), drafts(d)));
  single(KeepFormDraftUseCase, (d) => new KeepFormDraftUseCase(drafts(d), clock(d)));
  single(RestoreFormDraftUseCase, (d) => new RestoreFormDraftUseCase(drafts(d)));
  single(GetUnsentWorkUseCase, (d) => new GetUnsentWorkUseCase(outbox(d), drafts(d)));
  single(ListQueuedAnswersUseCase, (d) => new ListQueuedAnswersUseCase(outbox(d)));
  single(ClearOfflineAnswersUseCase, (d) => new ClearOfflineAnswersUseCase(outbox(d), drafts(d)));
}
