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
import {
  OfflineAnswersViewModel,
  type AnswerOutcome,
  type OfflineEnvironment,
  type OfflineStorageHealth,
} from "./offline-answers-view-model";

type NoticeListener = (userId: string, outcome?: AnswerOutcome) => void;

/**
 * For tests: a browser stand-in that several view models ('tabs', see `tab()`) can share: connectivity switched
 * by hand, one lock per name, notices to every other tab (as a BroadcastChannel), timers run on demand.
 */
export class ManualOfflineEnvironment implements OfflineEnvironment {
  online = true;
  readonly timers = new Map<number, { fn: () => void; ms: number }>();
  private readonly connectivity = new Set<(online: boolean) => void>();
  /** Listeners with the tab that registered them (0: this object used as a tab itself). */
  private readonly notices = new Map<NoticeListener, number>();
  private tabs = 0;
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
  notify(userId: string, outcome?: AnswerOutcome, from = 0): void {
    // as a BroadcastChannel, asynchronously and to the other tabs only; a copy, as structured clone gives
    const copy = outcome ? (structuredClone(outcome) as AnswerOutcome) : undefined;
    for (const [l, tab] of this.notices) if (tab !== from) queueMicrotask(() => l(userId, copy));
  }
  onNotice(listener: NoticeListener, tab = 0) {
    this.notices.set(listener, tab);
    return () => {
      this.notices.delete(listener);
    };
  }
  /** One more tab of the same browser: shares everything, hears the notices of the other tabs. */
  tab(): OfflineEnvironment {
    const id = ++this.tabs;
    return {
      isOnline: () => this.isOnline(),
      onConnectivity: (listener) => this.onConnectivity(listener),
      withLock: (name, task) => this.withLock(name, task),
      notify: (userId, outcome) => this.notify(userId, outcome, id),
      onNotice: (listener) => this.onNotice(listener, id),
      setTimer: (fn, ms) => this.setTimer(fn, ms),
      clearTimer: (handle) => this.clearTimer(handle),
      random: () => this.random(),
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
    env.tab(),
    options.storage,
  );
  void offline.setUser(options.userId ?? "u1");
  return { offline, env, outbox, drafts };
}
