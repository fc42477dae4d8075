import {
  ClearOfflineAnswersUseCase,
  GetUnsentWorkUseCase,
  KeepFormDraftUseCase,
  ListQueuedAnswersUseCase,
  QueueAnswerUseCase,
  ResolveQueuedAnswerUseCase,
  RestoreFormDraftUseCase,
  SendNextAnswerUseCase,
  type AnswerSyncRepository,
  type FormDraftStore,
  type OutboxStore,
} from "@tessera/domain";
import { MemoryDrafts, MemoryOutbox } from "@tessera/domain/testing";
import { OfflineAnswersViewModel, type OfflineEnvironment, type OfflineStorageHealth } from "./offline-answers-view-model";

/**
 * For tests: a browser stand-in that several view models ('tabs') can share: connectivity switched by hand, one
 * lock per name, notices to every tab, timers run on demand.
 */
export class ManualOfflineEnvironment implements OfflineEnvironment {
  online = true;
  readonly timers = new Map<number, { fn: () => void; ms: number }>();
  private readonly connectivity = new Set<(online: boolean) => void>();
  private readonly notices = new Set<(userId: string) => void>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private n = 0;

  isOnline(): boolean {
    return this.online;
  }
  onConnectivity(listener: (online: boolean) => void) {
    this.connectivity.add(listener);
    return () => {
      this.connectivity.delete(listener);
    };
  }
  setOnline(online: boolean): void {
    this.online = online;
    for (const l of this.connectivity) l(online);
  }
  withLock<T>(name: string, task: () => Promise<T>): Promise<T> {
    const run = (this.locks.get(name) ?? Promise.resolve()).then(task, task);
    this.locks.set(
      name,
      run.catch(() => undefined),
    );
    return run;
  }
  notify(userId: string): void {
    for (const l of this.notices) l(userId);
  }
  onNotice(listener: (userId: string) => void) {
    this.notices.add(listener);
    return () => {
      this.notices.delete(listener);
    };
  }
  setTimer(fn: () => void, ms: number): unknown {
    const id = ++this.n;
    this.timers.set(id, { fn, ms });
    return id;
  }
  clearTimer(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** Runs the timers due now (the back-off elapsed). */
  fireTimers(): void {
    const due = [...this.timers.values()];
    this.timers.clear();
    for (const t of due) t.fn();
  }
  random(): number {
    return 0;
  }
}

/** An offline-answers view model over in-memory stores (shared when given: another tab of the same browser). */
export function testOfflineAnswers(
  sync: AnswerSyncRepository,
  options: {
    env?: ManualOfflineEnvironment;
    outbox?: OutboxStore;
    drafts?: FormDraftStore;
    userId?: string;
    storage?: OfflineStorageHealth;
  } = {},
) {
  const env = options.env ?? new ManualOfflineEnvironment();
  const outbox = options.outbox ?? new MemoryOutbox();
  const drafts = options.drafts ?? new MemoryDrafts();
  const clock = { now: () => Date.now(), delay: async () => {} };
  const offline = new OfflineAnswersViewModel(
    {
      queue: new QueueAnswerUseCase(outbox, drafts, clock),
      sendNext: new SendNextAnswerUseCase(outbox, drafts, sync),
      list: new ListQueuedAnswersUseCase(outbox),
      resolve: new ResolveQueuedAnswerUseCase(outbox, drafts),
      keepForm: new KeepFormDraftUseCase(drafts, clock),
      restoreForm: new RestoreFormDraftUseCase(drafts),
      unsent: new GetUnsentWorkUseCase(outbox, drafts),
      clear: new ClearOfflineAnswersUseCase(outbox, drafts),
    },
    env,
    options.storage,
  );
  void offline.setUser(options.userId ?? "u1");
  return { offline, env, outbox, drafts };
}
