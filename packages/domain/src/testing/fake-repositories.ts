import type { RecordProps } from "../entities/record.js";
import type { RecordResponse } from "../entities/answer.js";
import type { RecordSearchRequest } from "../criteria/search-body.js";
import type {
  BulkResponseItem,
  BulkResponseResult,
  RecordRepository,
  ResponsePayload,
  ResponseRepository,
} from "../ports/record-repository.js";
import type { FieldRepository, QuestionRepository } from "../ports/settings-repositories.js";
import { FIELDS, QUESTIONS, recordProps } from "./fixtures.js";

/** An in-memory record store answering searches by response status, offset and limit. */
export class FakeRecords implements RecordRepository {
  readonly requests: RecordSearchRequest[] = [];
  byId: RecordProps[] = [];
  failNext = false;
  /** Holds searches until release() when set. */
  gate: Promise<void> | null = null;

  constructor(public store: RecordProps[]) {}

  static withCount(n: number): FakeRecords {
    return new FakeRecords(Array.from({ length: n }, (_, i) => recordProps(`r${i + 1}`)));
  }

  async search(request: RecordSearchRequest) {
    this.requests.push(request);
    if (this.gate) await this.gate;
    if (this.failNext) {
      this.failNext = false;
      throw new Error("boom");
    }
    const statusFilter = request.body.filters?.and.find((f) => f.scope.entity === "response");
    const wanted = statusFilter && statusFilter.type === "terms" ? statusFilter.values : null;
    const matching = this.store.filter((r) => !wanted || wanted.includes(r.response?.status ?? "pending"));
    return { records: matching.slice(request.offset, request.offset + request.limit), total: matching.length };
  }

  async getById(id: string) {
    const found = this.byId.find((r) => r.id === id) ?? this.store.find((r) => r.id === id);
    if (!found) throw new Error("not found");
    return found;
  }
}

export const fakeQuestions = (): QuestionRepository & { calls: number } => {
  const repo = {
    calls: 0,
    list: async () => {
      repo.calls++;
      return Object.values(QUESTIONS);
    },
    create: async () => {
      throw new Error("unused");
    },
    update: async () => {
      throw new Error("unused");
    },
  };
  return repo;
};

export const fakeFields = (): FieldRepository => ({
  list: async () => FIELDS,
  create: async () => {
    throw new Error("unused");
  },
  update: async () => {
    throw new Error("unused");
  },
});

/** Responses that record every call; bulk fails records listed in failIds. */
export class FakeResponses implements ResponseRepository {
  readonly calls: Array<{ op: string; id: string; payload?: ResponsePayload | BulkResponseItem[] }> = [];
  failIds = new Set<string>();
  private n = 0;

  private make(recordId: string, p: ResponsePayload, id = `resp-${++this.n}`): RecordResponse {
    return { id, status: p.status, values: p.values, updatedAt: `t${this.n}`, recordId };
  }
  async create(recordId: string, payload: ResponsePayload) {
    this.calls.push({ op: "create", id: recordId, payload });
    return this.make(recordId, payload);
  }
  async update(responseId: string, payload: ResponsePayload) {
    this.calls.push({ op: "update", id: responseId, payload });
    return this.make("?", payload, responseId);
  }
  async delete(responseId: string) {
    this.calls.push({ op: "delete", id: responseId });
  }
  async bulk(items: BulkResponseItem[]): Promise<BulkResponseResult[]> {
    this.calls.push({ op: "bulk", id: "", payload: items });
    return items.map((i) =>
      this.failIds.has(i.recordId)
        ? { recordId: i.recordId, success: false as const, error: "invalid" }
        : { recordId: i.recordId, success: true as const, response: this.make(i.recordId, i) },
    );
  }
}
