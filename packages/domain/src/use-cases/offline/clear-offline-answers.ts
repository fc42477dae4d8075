import type { FormDraftStore, OutboxStore } from "../../offline/ports.js";

/** Sign-out: nothing of the user's answers stays on this device. */
export class ClearOfflineAnswersUseCase {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly drafts: FormDraftStore,
  ) {}

  async execute(userId: string): Promise<void> {
    await Promise.all([this.outbox.clear(userId), this.drafts.clear(userId)]);
  }
}
