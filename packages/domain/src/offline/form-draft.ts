import type { DatasetRecord } from "../entities/record.js";
import { baseOf, type ResponseBase } from "./outbox.js";

/**
 * What a record's form holds on this device, kept at every change (each keystroke, label, rank, rating, span)
 * until the server has it: the answers by question name (as `QuestionAnswer.snapshot()`) and the server
 * response they were given on.
 */
export interface FormDraft {
  userId: string;
  datasetId: string;
  recordId: string;
  answers: { [questionName: string]: string };
  base: ResponseBase | null;
  savedAt: string;
}

/** The record's form as a draft; `previous` (a stored draft of the record) keeps its base: the version the work started on. */
export function formDraftOf(userId: string, record: DatasetRecord, savedAt: string, previous?: FormDraft | null): FormDraft {
  const answers: FormDraft["answers"] = {};
  for (const q of record.questions) answers[q.name] = q.answer.snapshot();
  return {
    userId,
    datasetId: record.datasetId,
    recordId: record.id,
    answers,
    base: previous ? previous.base : baseOf(record.answer),
    savedAt,
  };
}

/** Puts a draft's answers into the record's form (questions that no longer exist are ignored). Returns whether anything changed. */
export function applyFormDraft(record: DatasetRecord, draft: FormDraft): boolean {
  let changed = false;
  for (const q of record.questions) {
    const saved = draft.answers[q.name];
    if (saved === undefined || saved === q.answer.snapshot()) continue;
    try {
      q.answer.restore(saved);
      changed = true;
    } catch {
      /* a corrupt entry is skipped, the server's answer stays */
    }
  }
  return changed;
}
