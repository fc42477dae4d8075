import { DatasetRecord } from "../../entities/record.js";
import type { RecordCriteria } from "../../criteria/record-criteria.js";
import type { FetchWindow, RecordsQueue } from "../../queue/records-queue.js";
import type { RecordRepository } from "../../ports/record-repository.js";
import type { FieldRepository, QuestionRepository } from "../../ports/settings-repositories.js";
import type { QueueReservations } from "../reservations/ports.js";

export interface RecordsPage {
  records: DatasetRecord[];
  total: number;
  /** More records match than `total` (RecordSearchResult.totalIsLowerBound). */
  totalIsLowerBound: boolean;
  reference: DatasetRecord | null;
  reservations?: QueueReservations | null;
}

/** Fetches records, questions and fields in parallel and builds records with their own question copies. */
export class GetRecordsByCriteriaUseCase {
  constructor(
    private readonly records: RecordRepository,
    private readonly questions: QuestionRepository,
    private readonly fields: FieldRepository,
  ) {}

  async execute(criteria: RecordCriteria, window: FetchWindow, queue?: RecordsQueue): Promise<RecordsPage> {
    const [result, questions, fields] = await Promise.all([
      this.records.search({
        datasetId: criteria.datasetId,
        offset: Math.max(0, window.from - 1),
        limit: window.many,
        body: criteria.toSearchBody(),
        ...(criteria.takesFromTeamQueue ? { reserve: true } : {}),
      }),
      this.questions.list(criteria.datasetId),
      this.fields.list(criteria.datasetId),
    ]);
    const bulk = criteria.page.mode === "bulk";
    const fetched = window.skipQueued && queue ? result.records.filter((props) => !queue.has(props.id)) : result.records;
    const records = fetched.map((props, i) => {
      const record = new DatasetRecord(props, questions, fields, window.queuePage + i);
      record.initialize(bulk);
      return record;
    });
    let reference: DatasetRecord | null = null;
    if (criteria.similarity) {
      const id = criteria.similarity.recordId;
      reference = (queue?.reference?.id === id ? queue.reference : null) ?? queue?.records.find((r) => r.id === id) ?? null;
      // The reference record is fetched separately when it is not in the store.
      if (!reference) {
        reference = new DatasetRecord(await this.records.getById(id), questions, fields, 0);
        reference.initialize(bulk);
      }
    }
    return {
      records,
      total: result.total,
      totalIsLowerBound: result.totalIsLowerBound === true,
      reference,
      reservations: result.reservations ?? null,
    };
  }
}
