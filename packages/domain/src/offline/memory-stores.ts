import type { FormDraft } from "./form-draft.js";
import type { OutboxEntry } from "./outbox.js";
import type { FormDraftStore, OutboxStore } from "./ports.js";

/** The outbox in this page's memory: the rules' tests, and the fallback of a browser that cannot keep it on disk. */
export class MemoryOutbox implements OutboxStore {
  entries: OutboxEntry[] = [];
  private mine(userId: string) {
    return this.entries.filter((e) => e.userId === userId).sort((a, b) => a.seq - b.seq);
  }
  async list(userId: string) {
    return this.mine(userId);
  }
  /** Read, change and write without a pause, like one IndexedDB read-write transaction. */
  async change(userId: string, change: (entries: OutboxEntry[]) => OutboxEntry[]) {
    const next = change(this.mine(userId));
    this.entries = [...this.entries.filter((e) => e.userId !== userId), ...next];
    return this.mine(userId);
  }
  async clear(userId: string) {
    this.entries = this.entries.filter((e) => e.userId !== userId);
  }
}

/** Kept forms in this page's memory (see `MemoryOutbox`). */
export class MemoryDrafts implements FormDraftStore {
  readonly drafts = new Map<string, FormDraft>();
  async get(userId: string, recordId: string) {
    return this.drafts.get(`${userId}/${recordId}`) ?? null;
  }
  async change(userId: string, recordId: string, change: (draft: FormDraft | null) => FormDraft | null) {
    const key = `${userId}/${recordId}`;
    const next = change(this.drafts.get(key) ?? null);
    if (next) this.drafts.set(key, next);
    else this.drafts.delete(key);
  }
  async list(userId: string) {
    return [...this.drafts.values()].filter((d) => d.userId === userId);
  }
  async clear(userId: string) {
    for (const d of await this.list(userId)) this.drafts.delete(`${userId}/${d.recordId}`);
  }
}
