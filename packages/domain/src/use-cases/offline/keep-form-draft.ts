import type { DatasetRecord } from "../../entities/record.js";
import type { Clock } from "../../ports/more-ports.js";
import type { FormDraftStore } from "../../offline/ports.js";
import { formDraftOf } from "../../offline/form-draft.js";

/**
 * Keeps the record's form on this device after a change (each keystroke, label, rank, rating, span), or
 * forgets it when the form is back to what the server has (reset, saved).
 */
export class KeepFormDraftUseCase {
  constructor(
    private readonly drafts: FormDraftStore,
    private readonly clock: Clock,
  ) {}

  async execute(userId: string, record: DatasetRecord): Promise<void> {
    const savedAt = new Date(this.clock.now()).toISOString();
    await this.drafts.change(userId, record.id, (previous) => (record.isModified ? formDraftOf(userId, record, savedAt, previous) : null));
  }
}
