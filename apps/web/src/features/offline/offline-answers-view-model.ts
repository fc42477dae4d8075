import { action, computed, makeObservable, observable, observableRef, runInAction, when } from "mobx";
import {
  retryDelay,
  type AnswerValues,
  type ClearOfflineAnswersUseCase,
  type ConflictChoice,
  type DatasetRecord,
  type GetUnsentWorkUseCase,
  type KeepFormDraftUseCase,
  type ListQueuedAnswersUseCase,
  type OutboxEntry,
  type QueueAnswerUseCase,
  type RecordResponse,
  type ResolveQueuedAnswerUseCase,
  type ResponseStatus,
  type RestoreFormDraftUseCase,
  type SendNextAnswerUseCase,
  type UnsentWork,
} from "@tessera/domain";

/** What the view model needs from the domain (narrowed so tests can pass the real use cases over other stores). */
export interface OfflineAnswersUseCases {
  queue: Pick<QueueAnswerUseCase, "execute">;
  sendNext: Pick<SendNextAnswerUseCase, "execute" | "recover">;
  list: Pick<ListQueuedAnswersUseCase, "execute">;
  resolve: Pick<ResolveQueuedAnswerUseCase, "execute">;
  keepForm: Pick<KeepFormDraftUseCase, "execute">;
  restoreForm: Pick<RestoreFormDraftUseCase, "execute">;
  unsent: Pick<GetUnsentWorkUseCase, "execute">;
  clear: Pick<ClearOfflineAnswersUseCase, "execute">;
}

/**
 * What became of one queued answer, told by the tab that sent it to the user's other tabs: the tab where the
 * answer was given settles it as its own (its Submit resolves, or meets the conflict), whichever tab sent it.
 * `replaced`: a later answer for the record (`entry`, given in the tab telling it) replaced the unsent one
 * numbered `replaced`; the tab that gave that one settles it with the later one.
 */
export type AnswerOutcome =
  | { kind: "sent"; entry: OutboxEntry; response: RecordResponse }
  | { kind: "conflict"; entry: OutboxEntry; server: RecordResponse | null }
  | { kind: "rejected"; entry: OutboxEntry; status: number }
  | { kind: "replaced"; entry: OutboxEntry; replaced: number };

/**
 * Hears every answer the server took, in every tab of the user, whichever tab sent it. `own`: the answer was
 * given in this tab (this page queued it); otherwise it was given in another tab or an earlier page.
 */
export type DeliveredListener = (recordId: string, response: RecordResponse, own: boolean) => void;

/** The browser around the outbox: connectivity, the cross-tab send lock and change notices, timers. */
export interface OfflineEnvironment {
  isOnline(): boolean;
  /** Calls back on 'online' / 'offline'; returns the function that stops listening. */
  onConnectivity(listener: (online: boolean) => void): () => void;
  /** Runs `task` holding the named lock, one holder at a time across the browser's tabs (Web Locks). */
  withLock<T>(name: string, task: () => Promise<T>): Promise<T>;
  /**
   * Tells the other tabs (not this one) that a user's outbox changed, with what became of an answer when one was
   * settled, and listens for their notices.
   */
  notify(userId: string, outcome?: AnswerOutcome): void;
  onNotice(listener: (userId: string, outcome?: AnswerOutcome) => void): () => void;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
  random(): number;
}

/** Whether this page keeps answers on disk (infrastructure's `OfflineStorageState`). */
export interface OfflineStorageHealth {
  readonly unavailable: boolean;
  onChange(listener: () => void): () => void;
}

const ALWAYS_AVAILABLE: OfflineStorageHealth = { unavailable: false, onChange: () => () => undefined };

/** A queued answer the server had a newer version of: the annotator chooses (see `resolve`). */
export class AnswerConflictError extends Error {
  constructor(
    readonly entry: OutboxEntry,
    readonly server: RecordResponse | null,
  ) {
    super("answer conflict");
    this.name = "AnswerConflictError";
  }
}

/** A queued answer the server refused (4xx): kept in the outbox until retried or dropped. */
export class AnswerRefusedError extends Error {
  constructor(
    readonly entry: OutboxEntry,
    readonly status: number,
  ) {
    super(`answer refused (${status})`);
    this.name = "AnswerRefusedError";
  }
}

interface Waiter {
  resolve: (response: RecordResponse) => void;
  reject: (error: Error) => void;
}

/**
 * The signed-in user's answers that are only on this device: every Submit, Save as draft, Discard (and bulk
 * fallback) goes into the outbox first and is sent from there, in order, one tab at a time, with back-off while
 * the server is unreachable. Keeps and restores record forms at every change. One per app.
 */
export class OfflineAnswersViewModel {
  userId: string | null = null;
  entries: OutboxEntry[] = [];
  online: boolean;
  /** When the next attempt is due after a failure (ms since epoch), else null. */
  retryAt: number | null = null;
  /** Records whose form was restored from this device in this session. */
  restored = new Set<string>();
  /** Sign-out was asked for while work is only on this device: what, until the user decides. */
  signOutPrompt: UnsentWork | null = null;
  /** Form changes asked to be kept that are not on this device's disk yet (their transaction has not committed). */
  private keepsOutstanding = 0;
  /** The last keep failed: this browser cannot keep work (no IndexedDB, a private window, quota, a stuck database). */
  keepFailed = false;
  /** This browser cannot keep answers on disk: they live in this page only (sent at once when online). */
  storageUnavailable: boolean;
  private signedOut: (() => void) | null = null;

  private readonly waiters = new Map<number, Waiter[]>();
  private readonly delivered = new Set<DeliveredListener>();
  private serial: Promise<unknown> = Promise.resolve();
  /** Records whose keep waits in line, with the number of changes it will cover. */
  private readonly keeping = new Map<string, number>();
  private draining: Promise<void> | null = null;
  private again = false;
  private timer: unknown = null;
  private readonly stops: Array<() => void> = [];

  constructor(
    private readonly useCases: OfflineAnswersUseCases,
    private readonly env: OfflineEnvironment,
    storage: OfflineStorageHealth = ALWAYS_AVAILABLE,
  ) {
    this.online = env.isOnline();
    this.storageUnavailable = storage.unavailable;
    makeObservable<OfflineAnswersViewModel, "setEntries" | "keepsOutstanding">(this, {
      userId: observable,
      entries: observableRef,
      online: observable,
      retryAt: observable,
      restored: observable,
      waiting: computed,
      conflicts: computed,
      refused: computed,
      setEntries: action,
      markRestored: action,
      signOutPrompt: observableRef,
      keepsOutstanding: observable,
      keepFailed: observable,
      storageUnavailable: observable,
      formKept: computed,
      cancelSignOut: action,
    });
    this.stops.push(
      env.onConnectivity((online) => {
        runInAction(() => {
          this.online = online;
        });
        if (online) this.sendNow();
      }),
    );
    this.stops.push(
      storage.onChange(() =>
        runInAction(() => {
          this.storageUnavailable = storage.unavailable;
        }),
      ),
    );
    this.stops.push(
      env.onNotice((userId, outcome) => {
        if (userId !== this.userId) return;
        if (outcome) this.deliver(outcome); // another tab sent an answer: this tab's own is settled here
        void this.refresh();
        this.kick();
      }),
    );
  }

  /** Answers waiting to be sent. */
  get waiting(): number {
    return this.entries.filter((e) => e.state === "waiting").length;
  }
  /** Answers the server had a newer version of: the annotator chooses. */
  get conflicts(): OutboxEntry[] {
    return this.entries.filter((e) => e.state === "conflict");
  }
  /** Answers the server refused, kept until retried or dropped. */
  get refused(): OutboxEntry[] {
    return this.entries.filter((e) => e.state === "rejected");
  }
  /** Anything not on the server yet (the page warns before it is left). */
  get hasUnsent(): boolean {
    return this.entries.length > 0;
  }

  isQueued(recordId: string): boolean {
    return this.entries.some((e) => e.recordId === recordId);
  }

  /** The signed-in user changed (sign-in, sign-out, reload): their outbox is loaded and sent. */
  async setUser(userId: string | null): Promise<void> {
    if (userId === this.userId) return;
    runInAction(() => {
      this.userId = userId;
      this.restored.clear();
      this.retryAt = null;
    });
    this.setEntries([]);
    if (!userId) return;
    await this.refresh();
    this.kick();
  }

  private setEntries(entries: OutboxEntry[]): void {
    this.entries = entries;
  }

  private async refresh(): Promise<void> {
    const userId = this.userId;
    if (!userId) return;
    const entries = await this.useCases.list.execute(userId).catch(() => this.entries);
    if (userId === this.userId) this.setEntries(entries);
  }

  private user(): string {
    if (!this.userId) throw new Error("no signed-in user");
    return this.userId;
  }

  /** Runs IndexedDB writes of this tab one after the other, in the order the annotator acted. */
  private inOrder<T>(task: () => Promise<T>): Promise<T> {
    const run = this.serial.then(task, task);
    this.serial = run.catch(() => undefined);
    return run;
  }

  /**
   * Submit, Save as draft or Discard (`values`: the bulk form's answers): kept on this device first, then sent.
   * Resolves with the server's response once it has it (which may be much later); rejects with
   * `AnswerConflictError` or `AnswerRefusedError`, or a validation error before anything is queued.
   */
  async send(record: DatasetRecord, status: ResponseStatus, values?: AnswerValues): Promise<RecordResponse> {
    const userId = this.user();
    const { entry, replaced } = await this.inOrder(() => this.useCases.queue.execute(userId, record, status, values));
    // at once, before any tab can send the new answer: the tab that gave a replaced one settles it with this one
    this.env.notify(userId, replaced !== null ? { kind: "replaced", entry, replaced } : undefined);
    const delivered = new Promise<RecordResponse>((resolve, reject) => {
      // an earlier answer for the record that this one replaced is delivered with it
      const moved = replaced !== null ? (this.waiters.get(replaced) ?? []) : [];
      if (replaced !== null) this.waiters.delete(replaced);
      this.waiters.set(entry.seq, [...(this.waiters.get(entry.seq) ?? []), ...moved, { resolve, reject }]);
    });
    await this.refresh();
    this.kick();
    return delivered;
  }

  /**
   * Whether the form changes made so far are on this device's disk: "kept" once the transaction of the latest
   * change has committed (a crash from then on loses nothing), "keeping" before, "failed" when this browser
   * cannot keep them.
   */
  get formKept(): "kept" | "keeping" | "failed" {
    if (this.keepsOutstanding > 0) return "keeping";
    return this.keepFailed || this.storageUnavailable ? "failed" : "kept";
  }

  /** Keeps the record's form on this device (each change); forgets it when the form is back to the server's. */
  keep(record: DatasetRecord): Promise<void> {
    const userId = this.userId;
    if (!userId) return Promise.resolve();
    runInAction(() => {
      this.keepsOutstanding++;
    });
    // a keep of this record already waiting in line will read the latest form when it runs
    const waiting = this.keeping.get(record.id);
    if (waiting !== undefined) {
      this.keeping.set(record.id, waiting + 1);
      return this.serial.then(() => undefined);
    }
    this.keeping.set(record.id, 1);
    return this.inOrder(async () => {
      // this run reads the form as it is now: it covers every change of the record asked so far
      const covers = this.keeping.get(record.id) ?? 1;
      this.keeping.delete(record.id);
      let failed = false;
      try {
        await this.useCases.keepForm.execute(userId, record);
      } catch {
        failed = true;
      }
      runInAction(() => {
        this.keepsOutstanding -= covers;
        this.keepFailed = failed;
      });
    });
  }

  /** Puts a kept form back into a record being shown. Resolves true when the form now holds unsent work. */
  async restore(record: DatasetRecord): Promise<boolean> {
    // a record can be shown a moment before the signed-in user reaches this view model (sign-in, reload)
    if (!this.userId) await when(() => this.userId !== null, { timeout: 10_000 }).catch(() => undefined);
    const userId = this.userId;
    if (!userId) return false;
    const restored = await this.useCases.restoreForm.execute(userId, record).catch(() => false);
    if (restored && userId === this.userId) this.markRestored(record.id);
    return restored;
  }

  markRestored(recordId: string): void {
    this.restored.add(recordId);
  }

  /** Whether the record's form was restored from this device in this session and still differs from the server's. */
  holdsRestoredWork(record: DatasetRecord): boolean {
    return this.restored.has(record.id) && record.isModified;
  }

  /**
   * Called with every answer the server took, in every tab, whichever tab sent it (also those queued in an
   * earlier page or another tab: `own` is false for them).
   */
  onDelivered(listener: DeliveredListener): () => void {
    this.delivered.add(listener);
    return () => {
      this.delivered.delete(listener);
    };
  }

  /** The annotator's choice on a conflict (or a refused answer: 'mine' retries, 'theirs' drops). */
  async resolve(entry: OutboxEntry, choice: ConflictChoice): Promise<RecordResponse | null> {
    const server = await this.useCases.resolve.execute(entry, choice);
    await this.refresh();
    if (this.userId) this.env.notify(this.userId);
    if (choice === "mine") this.kick();
    return server;
  }

  /** Tries at once (the 'Send now' button, the connection coming back). */
  sendNow(): void {
    if (this.timer !== null) {
      this.env.clearTimer(this.timer);
      this.timer = null;
    }
    runInAction(() => {
      this.retryAt = null;
    });
    this.kick();
  }

  /**
   * Starts sending unless this tab already is (a call meanwhile runs one more pass after it), the browser is
   * offline or a back-off is running.
   */
  private kick(): void {
    const userId = this.userId;
    if (!userId || !this.online) return; // offline: the 'online' event starts it
    if (this.retryAt !== null) return; // backing off after a failure: the timer (or 'Send now') starts it
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.env
      .withLock(`tessera-outbox-${userId}`, () => this.drain(userId))
      .catch(() => undefined)
      .finally(() => {
        this.draining = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async drain(userId: string): Promise<void> {
    await this.useCases.sendNext.recover(userId);
    for (;;) {
      if (userId !== this.userId) return;
      const result = await this.useCases.sendNext.execute(userId);
      if (userId === this.userId) this.setEntries(result.entries);
      if (result.kind === "idle") return;
      if (result.kind === "unreachable") {
        this.env.notify(userId);
        this.scheduleRetry(retryDelay(result.attempts, this.env.random(), result.retryAfterMs));
        return;
      }
      const outcome: AnswerOutcome =
        result.kind === "sent"
          ? { kind: "sent", entry: result.entry, response: result.response }
          : result.kind === "conflict"
            ? { kind: "conflict", entry: result.entry, server: result.server }
            : { kind: "rejected", entry: result.entry, status: result.status };
      // the answer may have been given in another tab: that tab settles it when it hears the outcome
      this.env.notify(userId, outcome);
      this.deliver(outcome);
    }
  }

  /** What became of an answer (sent by this tab or another): the tab that queued it settles its Submit; every tab hears a delivery. */
  private deliver(outcome: AnswerOutcome): void {
    if (outcome.kind === "replaced") {
      const moved = this.waiters.get(outcome.replaced);
      this.waiters.delete(outcome.replaced);
      if (moved) this.waiters.set(outcome.entry.seq, [...(this.waiters.get(outcome.entry.seq) ?? []), ...moved]);
      return;
    }
    const seq = outcome.entry.seq;
    const waiters = this.waiters.get(seq) ?? [];
    const own = this.waiters.has(seq);
    this.waiters.delete(seq);
    for (const w of waiters) {
      if (outcome.kind === "sent") w.resolve(outcome.response);
      else if (outcome.kind === "conflict") w.reject(new AnswerConflictError(outcome.entry, outcome.server));
      else w.reject(new AnswerRefusedError(outcome.entry, outcome.status));
    }
    if (outcome.kind === "sent") for (const listener of this.delivered) listener(outcome.entry.recordId, outcome.response, own);
  }

  private scheduleRetry(ms: number): void {
    if (this.timer !== null) this.env.clearTimer(this.timer);
    runInAction(() => {
      this.retryAt = Date.now() + ms;
    });
    this.timer = this.env.setTimer(() => {
      this.timer = null;
      runInAction(() => {
        this.retryAt = null;
      });
      this.kick();
    }, ms);
  }

  /**
   * Before sign-out: tries to send what waits (when online, up to `waitMs`), then reports what is still only on
   * this device. Nothing left: the user's stored answers are cleared and 'clean' is returned.
   */
  async prepareSignOut(waitMs = 5000): Promise<UnsentWork | "clean"> {
    const userId = this.userId;
    if (!userId) return "clean";
    if (this.online && this.waiting > 0) {
      this.sendNow();
      const deadline = Date.now() + waitMs;
      while (Date.now() < deadline && this.waiting > 0 && this.retryAt === null) await new Promise((r) => setTimeout(r, 100));
    }
    await this.serial;
    const unsent = await this.useCases.unsent.execute(userId);
    if (unsent.answers + unsent.forms > 0) return unsent;
    await this.forget();
    return "clean";
  }

  /**
   * The avatar menu's 'Log out': when everything is sent, the user's stored answers are cleared and `signOut`
   * runs; otherwise the user is asked first (`signOutPrompt`, then `confirmSignOut` or `cancelSignOut`).
   */
  async requestSignOut(signOut: () => void): Promise<void> {
    const result = await this.prepareSignOut();
    if (result === "clean") {
      signOut();
      return;
    }
    this.signedOut = signOut;
    runInAction(() => {
      this.signOutPrompt = result;
    });
  }

  async confirmSignOut(): Promise<void> {
    const signOut = this.signedOut;
    this.signedOut = null;
    await this.forget();
    runInAction(() => {
      this.signOutPrompt = null;
    });
    signOut?.();
  }

  cancelSignOut(): void {
    this.signOutPrompt = null;
    this.signedOut = null;
  }

  /** Sign-out: nothing of the user's answers stays on this device. */
  async forget(): Promise<void> {
    const userId = this.userId;
    if (!userId) return;
    await this.serial;
    await this.useCases.clear.execute(userId);
    this.env.notify(userId);
    await this.setUser(null);
  }

  dispose(): void {
    for (const stop of this.stops.splice(0)) stop();
    if (this.timer !== null) this.env.clearTimer(this.timer);
  }
}
