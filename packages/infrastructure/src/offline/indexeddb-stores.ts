import { openDB, type DBSchema, type IDBPDatabase } from "idb";
import type { FormDraft, FormDraftStore, OutboxEntry, OutboxStore } from "@tessera/domain";

/** The browser database of offline answers: the outbox and the kept forms, keyed by user. */
export const OFFLINE_DB_NAME = "tessera-offline";

interface OfflineSchema extends DBSchema {
  outbox: { key: [string, number]; value: OutboxEntry; indexes: { byUser: string } };
  drafts: { key: [string, string]; value: FormDraft; indexes: { byUser: string } };
}

export type OfflineDatabase = IDBPDatabase<OfflineSchema>;

const createMissingStores = (db: IDBPDatabase<OfflineSchema>) => {
  if (!db.objectStoreNames.contains("outbox"))
    db.createObjectStore("outbox", { keyPath: ["userId", "seq"] }).createIndex("byUser", "userId");
  if (!db.objectStoreNames.contains("drafts"))
    db.createObjectStore("drafts", { keyPath: ["userId", "recordId"] }).createIndex("byUser", "userId");
};

/**
 * Opens (creating on first use) the offline database in the browser's IndexedDB. A database of that name
 * without the stores (created empty by something else) is repaired with a version upgrade.
 */
export async function openOfflineDatabase(name = OFFLINE_DB_NAME): Promise<OfflineDatabase> {
  const db = await openDB<OfflineSchema>(name, undefined, { upgrade: createMissingStores });
  if (db.objectStoreNames.contains("outbox") && db.objectStoreNames.contains("drafts")) return db;
  const version = db.version + 1;
  db.close();
  return openDB<OfflineSchema>(name, version, { upgrade: createMissingStores });
}

/** The database could not be opened (no IndexedDB, a private window, quota, or an open that never completed). */
export class OfflineStorageUnavailableError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = "OfflineStorageUnavailableError";
  }
}

/** The channel on which every page of the app listens, so that a page can wake the app's pages held frozen by the browser. */
export const OFFLINE_WAKE_CHANNEL = "tessera-offline-db";

/**
 * Evicts the app's pages that the browser keeps frozen in its back/forward cache. A page left (a full navigation,
 * e.g. right after sign-in) while it was creating or upgrading the database is frozen with the upgrade still
 * pending, and Chromium then queues every later open of that database behind it, without end (reproduced in
 * Chromium 156: the next page's drafts were never written). A frozen page that gets a message on a
 * BroadcastChannel it listens on is evicted instead, which ends its pending open.
 */
export interface FrozenPageWaker {
  /** Makes this page one that a `wake` of another page evicts while it is frozen. */
  listen(): void;
  wake(): void;
}

export const broadcastChannelWaker = (channelName = OFFLINE_WAKE_CHANNEL): FrozenPageWaker => {
  let listening: BroadcastChannel | null = null;
  const unref = (channel: BroadcastChannel) => (channel as { unref?: () => void }).unref?.(); // Node: keeps no test process alive
  return {
    listen() {
      if (listening || typeof BroadcastChannel === "undefined") return;
      listening = new BroadcastChannel(channelName);
      listening.onmessage = () => undefined;
      unref(listening);
    },
    wake() {
      if (typeof BroadcastChannel === "undefined") return;
      const channel = new BroadcastChannel(channelName);
      channel.postMessage("wake");
      channel.close();
    },
  };
};

export interface OfflineDatabaseOptions {
  name?: string;
  waker?: FrozenPageWaker;
  /** An open taking longer than this wakes the frozen pages of the app (ms). */
  wakeAfterMs?: number;
  /** An open taking longer than this fails with `OfflineStorageUnavailableError`; the next use tries again (ms). */
  timeoutMs?: number;
}

/** One lazily opened database shared by the stores of a container; an open never hangs (see `FrozenPageWaker`). */
export class OfflineDatabaseHandle {
  private db: Promise<OfflineDatabase> | null = null;
  private readonly name: string;
  private readonly waker: FrozenPageWaker;
  private readonly wakeAfterMs: number;
  private readonly timeoutMs: number;

  constructor(options: OfflineDatabaseOptions | string = {}) {
    const o = typeof options === "string" ? { name: options } : options;
    this.name = o.name ?? OFFLINE_DB_NAME;
    this.waker = o.waker ?? broadcastChannelWaker();
    this.wakeAfterMs = o.wakeAfterMs ?? 250;
    this.timeoutMs = o.timeoutMs ?? 8000;
  }

  get(): Promise<OfflineDatabase> {
    // a failed open (blocked, aborted by another page, quota, too slow) is tried again on the next use, not kept
    this.db ??= this.open().catch((error: unknown) => {
      this.db = null;
      throw error instanceof OfflineStorageUnavailableError
        ? error
        : new OfflineStorageUnavailableError("the offline database cannot be opened", error);
    });
    return this.db;
  }

  private open(): Promise<OfflineDatabase> {
    if (typeof indexedDB === "undefined") return Promise.reject(new OfflineStorageUnavailableError("this browser has no IndexedDB"));
    this.waker.listen();
    const opening = openOfflineDatabase(this.name);
    return new Promise<OfflineDatabase>((resolve, reject) => {
      let settled = false;
      const wake = setTimeout(() => this.waker.wake(), this.wakeAfterMs);
      const giveUp = setTimeout(() => {
        settled = true;
        reject(new OfflineStorageUnavailableError(`the offline database did not open within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      opening.then(
        (db) => {
          clearTimeout(wake);
          clearTimeout(giveUp);
          if (settled)
            db.close(); // given up on: the next use opens its own
          else resolve(db);
        },
        (error: unknown) => {
          clearTimeout(wake);
          clearTimeout(giveUp);
          if (!settled) reject(error as Error);
        },
      );
    });
  }
}

/** Writes reach the disk before a transaction completes: a crash right after a keystroke or a Submit loses nothing. */
const STRICT: IDBTransactionOptions = { durability: "strict" };

const bySeq = (a: OutboxEntry, b: OutboxEntry) => a.seq - b.seq;

/** The outbox in IndexedDB: `change` is one read-write transaction, so tabs of the browser never interleave. */
export class IndexedDbOutboxStore implements OutboxStore {
  constructor(private readonly handle: OfflineDatabaseHandle) {}

  async list(userId: string): Promise<OutboxEntry[]> {
    const db = await this.handle.get();
    return (await db.getAllFromIndex("outbox", "byUser", userId)).sort(bySeq);
  }

  async change(userId: string, change: (entries: OutboxEntry[]) => OutboxEntry[]): Promise<OutboxEntry[]> {
    const db = await this.handle.get();
    const tx = db.transaction("outbox", "readwrite", STRICT);
    const current = (await tx.store.index("byUser").getAll(userId)).sort(bySeq);
    const next = change(current).sort(bySeq);
    // the rules return unchanged entries as they were given: only removed, new and changed ones are written
    const keep = new Set(next.map((e) => e.seq));
    const untouched = new Set(current);
    const writes: Promise<unknown>[] = [];
    for (const e of current) if (!keep.has(e.seq)) writes.push(tx.store.delete([userId, e.seq]));
    for (const e of next) if (!untouched.has(e)) writes.push(tx.store.put({ ...e, userId }));
    await Promise.all([...writes, tx.done]);
    return next;
  }

  async clear(userId: string): Promise<void> {
    const db = await this.handle.get();
    const tx = db.transaction("outbox", "readwrite", STRICT);
    const keys = await tx.store.index("byUser").getAllKeys(userId);
    await Promise.all([...keys.map((k) => tx.store.delete(k)), tx.done]);
  }
}

/** The kept forms in IndexedDB, one per user and record. */
export class IndexedDbFormDraftStore implements FormDraftStore {
  constructor(private readonly handle: OfflineDatabaseHandle) {}

  async get(userId: string, recordId: string): Promise<FormDraft | null> {
    return (await (await this.handle.get()).get("drafts", [userId, recordId])) ?? null;
  }

  async change(userId: string, recordId: string, change: (draft: FormDraft | null) => FormDraft | null): Promise<void> {
    const db = await this.handle.get();
    const tx = db.transaction("drafts", "readwrite", STRICT);
    const draft = (await tx.store.get([userId, recordId])) ?? null;
    const next = change(draft);
    if (next === null) {
      if (draft) await tx.store.delete([userId, recordId]);
    } else if (next !== draft) await tx.store.put({ ...next, userId, recordId });
    await tx.done;
  }

  async list(userId: string): Promise<FormDraft[]> {
    return (await this.handle.get()).getAllFromIndex("drafts", "byUser", userId);
  }

  async clear(userId: string): Promise<void> {
    const db = await this.handle.get();
    const tx = db.transaction("drafts", "readwrite", STRICT);
    const keys = await tx.store.index("byUser").getAllKeys(userId);
    await Promise.all([...keys.map((k) => tx.store.delete(k)), tx.done]);
  }
}
