import type { DatasetRecord } from "../../entities/record.js";
import type { FormDraftStore } from "../../offline/ports.js";
import { applyFormDraft } from "../../offline/form-draft.js";

/** Puts the form kept on this device back into a record being shown. Resolves true when the form now holds unsent work. */
export class RestoreFormDraftUseCase {
  constructor(private readonly drafts: FormDraftStore) {}

  async execute(userId: string, record: DatasetRecord): Promise<boolean> {
    const draft = await this.drafts.get(userId, record.id);
    if (!draft) return false;
    applyFormDraft(record, draft);
    return record.isModified;
  }
}
