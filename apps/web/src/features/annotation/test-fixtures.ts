import {
  BulkAnnotateUseCase,
  DatasetMetrics,
  ClearRecordUseCase,
  DatasetRecord,
  ErrorCode,
  LoadRecordsUseCase,
  RepositoryError,
  type AnswerSyncRepository,
  type BulkResponseItem,
  type BulkResponseResult,
  type FieldProps,
  type GetRecordsByCriteriaUseCase,
  type QuestionProps,
  type FetchWindow,
  type RecordCriteria,
  type RecordProps,
  type RecordsQueue,
  type RecordResponse,
  type ResponsePayload,
  type ResponseRepository,
} from "@tessera/domain";
import type { AnnotationUseCases } from "./annotation-view-model";
import { testOfflineAnswers } from "../offline/test-environment";

export const QUESTIONS: QuestionProps[] = [
  {
    id: "q1",
    name: "sentiment",
    datasetId: "d",
    title: "Sentiment",
    required: true,
    settings: {
      type: "label_selection",
      options: [
        { value: "positive", text: "Positive" },
        { value: "negative", text: "Negative" },
        { value: "neutral", text: "Neutral" },
      ],
    },
  },
  { id: "q2", name: "comment", datasetId: "d", title: "Comment", required: false, settings: { type: "text", use_markdown: true } },
];
export const FIELDS: FieldProps[] = [{ id: "f1", name: "text", title: "Text", required: true, datasetId: "d", settings: { type: "text" } }];

export function recordProps(i: number, extra: Partial<RecordProps> = {}): RecordProps {
  return {
    id: `r${i}`,
    datasetId: "d",
    fields: { text: `Record number ${i}` },
    metadata: null,
    response: null,
    suggestions: [],
    insertedAt: "2026-01-01T00:00:00",
    updatedAt: "2026-01-01T00:00:00",
    queryScore: null,
    taskStatus: "pending",
    ...extra,
  };
}

/** An in-memory server: records with the caller's responses; search honours the response-status filter. */
export class FakeServer implements ResponseRepository, AnswerSyncRepository {
  responses = new Map<string, RecordResponse>();
  calls: string[] = [];
  searches = 0;
  failBulkFor = new Set<string>();
  metricsCalls = 0;
  /** Holds response creates and updates until it resolves, when set. */
  saveGate: Promise<void> | null = null;
  /** The next n response creates or updates are refused (422). */
  failSaves = 0;
  /** The next n response creates or updates meet an unreachable server (503). */
  unreachable = 0;
  /** Bulk calls fail as without a connection. */
  bulkUnreachable = false;
  /** Totals above it are answered as at least max(bound, end of the window), as the real server counts text searches. */
  totalBound: number | null = null;
  agents = [{ questionId: "q1", questionName: "sentiment", agents: ["gpt-4", "human"] }];
  private seq = 0;
  private version = 0;
  constructor(
    public records: RecordProps[],
    public questions: QuestionProps[] = QUESTIONS,
    public fields: FieldProps[] = FIELDS,
  ) {}

  private respond(recordId: string, payload: ResponsePayload, id?: string): RecordResponse {
    const response: RecordResponse = {
      id: id ?? `resp${++this.seq}`,
      recordId,
      status: payload.status,
      values: payload.values,
      updatedAt: `v${++this.version}`,
    };
    this.responses.set(recordId, response);
    return response;
  }
  private async saving(): Promise<void> {
    if (this.saveGate) await this.saveGate;
    if (this.failSaves > 0) {
      this.failSaves--;
      throw new RepositoryError(ErrorCode.ERROR_CREATING_RECORD_RESPONSE, 422);
    }
    if (this.unreachable > 0) {
      this.unreachable--;
      throw new RepositoryError(ErrorCode.ERROR_CREATING_RECORD_RESPONSE, 503);
    }
  }
  /** As the real server: a create meets 409 when the user has a response, a conditional update 412 when it changed since `basedOn`. */
  async create(recordId: string, payload: ResponsePayload) {
    await this.saving();
    if (this.responses.has(recordId)) throw new RepositoryError(ErrorCode.ERROR_CREATING_RECORD_RESPONSE, 409);
    this.calls.push(`create ${recordId} ${payload.status}`);
    return this.respond(recordId, payload);
  }
  async update(responseId: string, payload: ResponsePayload, basedOn?: string) {
    await this.saving();
    const [recordId, current] = [...this.responses.entries()].find(([, r]) => r.id === responseId) ?? [""];
    if (!current) throw new RepositoryError(ErrorCode.ERROR_UPDATING_RECORD_RESPONSE, 404);
    if (basedOn !== undefined && current.updatedAt !== basedOn) throw new RepositoryError(ErrorCode.ERROR_UPDATING_RECORD_RESPONSE, 412);
    this.calls.push(`update ${recordId} ${payload.status}`);
    return this.respond(recordId, payload, responseId);
  }
  async current(recordId: string) {
    return this.responses.get(recordId) ?? null;
  }
  async delete(responseId: string) {
    for (const [k, r] of this.responses)
      if (r.id === responseId) {
        this.responses.delete(k);
        this.calls.push(`delete ${k}`);
      }
  }
  async bulk(items: BulkResponseItem[]): Promise<BulkResponseResult[]> {
    if (this.bulkUnreachable) throw new RepositoryError(ErrorCode.ERROR_CREATING_RECORD_RESPONSE_BULK); // no connection
    this.calls.push(`bulk ${items.length}`);
    return items.map((i) =>
      this.failBulkFor.has(i.recordId)
        ? { recordId: i.recordId, success: false as const, error: "boom" }
        : { recordId: i.recordId, success: true as const, response: this.respond(i.recordId, i) },
    );
  }

  getRecords: Pick<GetRecordsByCriteriaUseCase, "execute"> = {
    execute: async (criteria: RecordCriteria, window: FetchWindow, queue?: RecordsQueue) => {
      this.searches++;
      const matching = this.records.filter((r) => (this.responses.get(r.id)?.status ?? "pending") === criteria.status);
      const slice = matching.slice(window.from - 1, window.from - 1 + window.many).filter((r) => !(window.skipQueued && queue?.has(r.id)));
      const records = slice.map((props, i) => {
        const record = new DatasetRecord(
          { ...props, response: this.responses.get(props.id) ?? null },
          this.questions,
          this.fields,
          window.queuePage + i,
        );
        record.initialize(criteria.page.mode === "bulk");
        return record;
      });
      const limit = this.totalBound === null ? null : Math.max(this.totalBound, window.from - 1 + window.many);
      if (limit !== null && matching.length > limit) return { records, total: limit, totalIsLowerBound: true, reference: null };
      return { records, total: matching.length, totalIsLowerBound: false, reference: null };
    },
  };

  /** The page's use cases; answers go through a real outbox (in memory) to this server. */
  useCases(
    offline = testOfflineAnswers(this),
  ): AnnotationUseCases & { loadRecords: LoadRecordsUseCase } & { offline: ReturnType<typeof testOfflineAnswers> } {
    const getRecords = this.getRecords as GetRecordsByCriteriaUseCase;
    return {
      offline,
      loadRecords: new LoadRecordsUseCase(getRecords),
      answers: offline.offline,
      clear: new ClearRecordUseCase(this),
      bulk: new BulkAnnotateUseCase(this, getRecords),
      metrics: { execute: async () => this.metrics() },
      agents: { execute: async () => this.agents },
    };
  }

  /** The caller's counts, as `GET /me/datasets/{id}/metrics` gives them. */
  metrics(): DatasetMetrics {
    this.metricsCalls++;
    const count = (status: string) => [...this.responses.values()].filter((r) => r.status === status).length;
    const pending = this.records.length - this.responses.size;
    return new DatasetMetrics(this.records.length, count("submitted"), count("discarded"), count("draft"), pending);
  }
}
