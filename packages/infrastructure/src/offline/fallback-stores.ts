import { MemoryDrafts, MemoryOutbox, type FormDraft, type FormDraftStore, type OutboxEntry, type OutboxStore } from "@tessera/domain";
import { OfflineStorageUnavailableError } from "./indexeddb-stores.js";

/**
 * Whether this page keeps offline answers on disk. Once the browser cannot (no IndexedDB, a private window, a full
 * disk, a database that does not open), they live in this page's memory: the app goes on working online, and the
 * annotator is told that unsent work is lost when the page closes. A reload tries the disk again.
 */
export class OfflineStorageState {
  unavailable = false;
  private readonly listeners = new Set<() => void>();

  markUnavailable(): void {
    if (this.unavailable) return;
    this.unavailable = true;
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}

/** A failure of the browser's storage itself (not of the rules run inside a transaction). */
const storageFailed = (error: unknown): boolean =>
  error instanceof OfflineStorageUnavailableError || (typeof DOMException !== "undefined" && error instanceof DOMException);

async function onDiskOrInMemory<T>(state: OfflineStorageState, disk: () => Promise<T>, memory: () => Promise<T>): Promise<T> {
  if (state.unavailable) return memory();
  try {
    return await disk();
  } catch (error) {
    if (!storageFailed(error)) throw error;
    state.markUnavailable();
    return memory();
  }
}

/** The outbox on disk, or in this page's memory once the disk cannot be used (see `OfflineStorageState`). */
export class FallbackOutboxStore implements OutboxStore {
  constructor(
    private readonly disk: OutboxStore,
    private readonly state: OfflineStorageState,
    private readonly memory: OutboxStore = new MemoryOutbox(),
  ) {}
  private use<T>(op: (store: OutboxStore) => Promise<T>): Promise<T> {
    return onDiskOrInMemory(
      this.state,
      () => op(this.disk),
      () => op(this.memory),
    );
  }
  list(userId: string): Promise<OutboxEntry[]> {
    return this.use((store) => store.list(userId));
  }
  change(userId: string, change: (entries: OutboxEntry[]) => OutboxEntry[]): Promise<OutboxEntry[]> {
    return this.use((store) => store.change(userId, change));
  }
  clear(userId: string): Promise<void> {
    return this.use((store) => store.clear(userId));
  }
}

/** The kept forms on disk, or in this page's memory once the disk cannot be used (see `OfflineStorageState`). */
export class FallbackFormDraftStore implements FormDraftStore {
  constructor(
    private readonly disk: FormDraftStore,
    private readonly state: OfflineStorageState,
    private readonly memory: FormDraftStore = new MemoryDrafts(),
  ) {}
  private use<T>(op: (store: FormDraftStore) => Promise<T>): Promise<T> {
    return onDiskOrInMemory(
      this.state,
      () => op(this.disk),
      () => op(this.memory),
    );
  }
  get(userId: string, recordId: string): Promise<FormDraft | null> {
    return this.use((store) => store.get(userId, recordId));
  }
  change(userId: string, recordId: string, change: (draft: FormDraft | null) => FormDraft | null): Promise<void> {
    return this.use((store) => store.change(userId, recordId, change));
  }
  list(userId: string): Promise<FormDraft[]> {
    return this.use((store) => store.list(userId));
  }
  clear(userId: string): Promise<void> {
    return this.use((store) => store.clear(userId));
  }
}
