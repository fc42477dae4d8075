import type { FormDraftStore, OutboxStore } from "../../offline/ports.js";

export interface UnsentWork {
  answers: number;
  forms: number;
}

/** What of the user's work is only on this device: queued answers and kept forms (asked about before sign-out). */
export class GetUnsentWorkUseCase {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly drafts: FormDraftStore,
  ) {}

  async execute(userId: string): Promise<UnsentWork> {
    const [entries, drafts] = await Promise.all([this.outbox.list(userId), this.drafts.list(userId)]);
    return { answers: entries.length, forms: drafts.length };
  }
}
