import type { DependencyContainer } from "tsyringe";
import {
  ClearOfflineAnswersUseCase,
  GetUnsentWorkUseCase,
  KeepFormDraftUseCase,
  ListQueuedAnswersUseCase,
  QueueAnswerUseCase,
  ResolveQueuedAnswerUseCase,
  RestoreFormDraftUseCase,
  SendNextAnswerUseCase,
} from "@tessera/domain";
import { OfflineStorageState } from "@tessera/infrastructure";
import { OfflineAnswersViewModel, type OfflineEnvironment } from "./offline-answers-view-model";
import { browserOfflineEnvironment } from "./browser-environment";

/** The app's one offline-answers view model, over the container's use cases. */
export function createOfflineAnswers(
  container: DependencyContainer,
  env: OfflineEnvironment = browserOfflineEnvironment(),
): OfflineAnswersViewModel {
  return new OfflineAnswersViewModel(
    {
      queue: container.resolve(QueueAnswerUseCase),
      sendNext: container.resolve(SendNextAnswerUseCase),
      list: container.resolve(ListQueuedAnswersUseCase),
      resolve: container.resolve(ResolveQueuedAnswerUseCase),
      keepForm: container.resolve(KeepFormDraftUseCase),
      restoreForm: container.resolve(RestoreFormDraftUseCase),
      unsent: container.resolve(GetUnsentWorkUseCase),
      clear: container.resolve(ClearOfflineAnswersUseCase),
    },
    env,
    container.isRegistered(OfflineStorageState) ? container.resolve(OfflineStorageState) : undefined,
  );
}
