import { BULK_ALL_FETCH_LIMIT, BULK_CHUNK_SIZE } from "../../constants.js";
import type { AnswerValues, ResponseStatus } from "../../entities/answer.js";
import type { DatasetRecord } from "../../entities/record.js";
import type { RecordCriteria } from "../../criteria/record-criteria.js";
import { MESSAGES, type Message } from "../../messages.js";
import type { BulkResponseResult, ResponseRepository } from "../../ports/record-repository.js";
import type { GetRecordsByCriteriaUseCase } from "./get-records-by-criteria.js";

export interface BulkAnnotateInput {
  criteria: RecordCriteria;
  /** The record whose answers are applied to every selected record (the bulk form). */
  answers: DatasetRecord;
  /** The selected records, or 'all' records matching the criteria (up to 1000). */
  selection: DatasetRecord[] | "all";
  status: ResponseStatus;
  /**
   * With 'all': the records already on screen. Their span answers (annotated on their own text)
   * are used instead of those of the freshly fetched copies.
   */
  onScreen?: DatasetRecord[];
}

export interface BulkAnnotateResult {
  results: BulkResponseResult[];
  allSucceeded: boolean;
  /** 'Some records failed to annotate' when any item failed. */
  message: Message | null;
}

/**
 * The values each record gets from the bulk form: the form's answers, except span questions, answered per record
 * from that record's own span answer (the on-screen copy when there is one) and left out when it has no span.
 */
export function bulkAnswerValues(
  input: Pick<BulkAnnotateInput, "answers" | "status" | "onScreen">,
): (record: DatasetRecord) => AnswerValues {
  const onScreen = new Map((input.onScreen ?? []).map((r) => [r.id, r]));
  const shared = input.answers.valuesFor(input.status);
  const spanQuestions = input.answers.questions.filter((q) => q.type === "span").map((q) => q.name);
  for (const name of spanQuestions) delete shared[name];
  return (record) => {
    const values: AnswerValues = { ...shared };
    const own = onScreen.get(record.id) ?? record;
    for (const name of spanQuestions) {
      const spans = own.question(name)?.answer.value;
      if (Array.isArray(spans) && spans.length > 0) values[name] = spans;
    }
    return values;
  };
}

/**
 * Bulk submit, discard or draft, in chunks of 10 with a progress percentage.
 *
 * Every record gets the form's answers except for span questions: spans are offsets into each
 * record's own text, so a span question is answered per record from that record's own span answer
 * (prefilled from its own span suggestions in bulk mode, editable on its text) and left out of the
 * record's values when it has no span.
 */
export class BulkAnnotateUseCase {
  constructor(
    private readonly responses: ResponseRepository,
    private readonly getRecords: GetRecordsByCriteriaUseCase,
  ) {}

  async execute(input: BulkAnnotateInput, onProgress: (percent: number) => void = () => {}): Promise<BulkAnnotateResult> {
    const records =
      input.selection === "all"
        ? (await this.getRecords.execute(input.criteria, { from: 1, many: BULK_ALL_FETCH_LIMIT, queuePage: 1 })).records
        : input.selection;
    const valuesOf = bulkAnswerValues(input);
    const byId = new Map(records.map((r) => [r.id, r]));
    const chunks: DatasetRecord[][] = [];
    for (let i = 0; i < records.length; i += BULK_CHUNK_SIZE) chunks.push(records.slice(i, i + BULK_CHUNK_SIZE));

    const results: BulkResponseResult[] = [];
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i] ?? [];
      const answered = await this.responses.bulk(chunk.map((r) => ({ recordId: r.id, status: input.status, values: valuesOf(r) })));
      for (const result of answered) {
        results.push(result);
        const record = byId.get(result.recordId);
        if (result.success && record) {
          record.answerSaved(result.response);
          record.initialize();
        }
      }
      onProgress(Math.round(((i + 1) / chunks.length) * 100));
    }
    const allSucceeded = results.every((r) => r.success);
    return { results, allSucceeded, message: allSucceeded ? null : MESSAGES.someRecordsFailed };
  }
}
