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

/** One lazily opened database shared by the stores of a container. */
export class OfflineDatabaseHandle {
  private db: Promise<OfflineDatabase> | null = null;
  constructor(private readonly name = OFFLINE_DB_NAME) {}
  get(): Promise<OfflineDatabase> {
    // a failed open (blocked, aborted by another page, quota) is tried again on the next use, not kept
    this.db ??= openOfflineDatabase(this.name).catch((error: unknown) => {
      this.db = null;
      throw error;
    });
    return this.db;
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
