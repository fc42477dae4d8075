import { instanceCachingFactory, type DependencyContainer } from "tsyringe";
import type { KyInstance } from "ky";
import {
  ClearFinalAnswerUseCase,
  ErrorCode,
  GetAgreementUseCase,
  GetReviewItemUseCase,
  ListReviewRecordsUseCase,
  REVIEW_TOKENS,
  SubmitFinalAnswerUseCase,
  type AgreementMetric,
  type AgreementReport,
  type AnswerValue,
  type AnswerValues,
  type Figures,
  type QuestionType,
  type ReviewItem,
  type ReviewList,
  type ReviewListQuery,
  type ReviewRepository,
  type ReviewScope,
} from "@tessera/domain";
import { call, seg } from "./http/call.js";

type Wrapped = { [question: string]: { value: AnswerValue } } | null;
const unwrap = (values: Wrapped): AnswerValues => Object.fromEntries(Object.entries(values ?? {}).map(([k, v]) => [k, v.value]));
const wrap = (values: AnswerValues) => Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { value }]));

interface WireAgreement {
  dataset_id: string;
  records: number;
  responses: number;
  annotators: { id: string; username: string; responses: number }[];
  questions: {
    name: string;
    title: string;
    type: QuestionType;
    records: number;
    responses: number;
    primary_metric: AgreementMetric;
    pair_metric: AgreementMetric;
    figures: Figures;
    pairs: { user_ids: [string, string]; records: number; figures: Figures }[];
    lowest: { record_id: string; agreement: number; responses: number; validated: boolean }[];
  }[];
  lowest: { record_id: string; agreement: number; questions: string[]; validated: boolean }[];
  review: { reviewed: number; needing_review: number };
}
interface WireItem {
  record: {
    id: string;
    external_id: string | null;
    fields: { [k: string]: unknown };
    metadata: { [k: string]: unknown } | null;
    status: "pending" | "completed";
    inserted_at: string;
    updated_at: string;
  };
  responses: {
    id: string;
    user_id: string;
    username: string;
    status: "submitted" | "draft" | "discarded";
    values: Wrapped;
    inserted_at: string;
    updated_at: string;
  }[];
  suggestions: {
    question_id: string;
    question_name: string;
    value: AnswerValue;
    score: number | number[] | null;
    agent: string | null;
    type: "model" | "human" | null;
  }[];
  disagreements: string[];
  majority: Wrapped;
  validated: boolean;
  final_answer: { values: Wrapped; reviewer: { id: string; username: string } | null; inserted_at: string; updated_at: string } | null;
}

const scopeBody = (scope: ReviewScope) => ({
  ...(scope.question ? { question: scope.question } : {}),
  ...(scope.userIds && scope.userIds.length > 0 ? { user_ids: scope.userIds } : {}),
  ...(scope.filters && scope.filters.length > 0 ? { filters: { and: scope.filters } } : {}),
});

function itemFrom(w: WireItem): ReviewItem {
  return {
    record: {
      id: w.record.id,
      externalId: w.record.external_id,
      fields: w.record.fields,
      metadata: w.record.metadata,
      status: w.record.status,
      insertedAt: w.record.inserted_at,
      updatedAt: w.record.updated_at,
    },
    responses: w.responses.map((r) => ({
      id: r.id,
      userId: r.user_id,
      username: r.username,
      status: r.status,
      values: unwrap(r.values),
      insertedAt: r.inserted_at,
      updatedAt: r.updated_at,
    })),
    suggestions: w.suggestions.map((s) => ({
      questionId: s.question_id,
      questionName: s.question_name,
      value: s.value,
      score: s.score,
      agent: s.agent,
      type: s.type,
    })),
    disagreements: w.disagreements,
    majority: unwrap(w.majority),
    finalAnswer: w.final_answer
      ? {
          values: unwrap(w.final_answer.values),
          reviewer: w.final_answer.reviewer,
          insertedAt: w.final_answer.inserted_at,
          updatedAt: w.final_answer.updated_at,
        }
      : null,
    validated: w.validated,
  };
}

/** The agreement and review endpoints (docs/api.md "Agreement and review"). */
export class HttpReviewRepository implements ReviewRepository {
  constructor(private readonly http: KyInstance) {}

  getAgreement(datasetId: string, scope: ReviewScope): Promise<AgreementReport> {
    return call(ErrorCode.ERROR_FETCHING_DATASET_PROGRESS, async () => {
      const w = await this.http.post(`v1/datasets/${seg(datasetId)}/agreement`, { json: scopeBody(scope) }).json<WireAgreement>();
      return {
        datasetId: w.dataset_id,
        records: w.records,
        responses: w.responses,
        annotators: w.annotators,
        questions: w.questions.map((q) => ({
          name: q.name,
          title: q.title,
          type: q.type,
          records: q.records,
          responses: q.responses,
          primaryMetric: q.primary_metric,
          pairMetric: q.pair_metric,
          figures: q.figures,
          pairs: q.pairs.map((p) => ({ userIds: p.user_ids, records: p.records, figures: p.figures })),
          lowest: q.lowest.map((l) => ({ recordId: l.record_id, agreement: l.agreement, responses: l.responses, validated: l.validated })),
        })),
        lowest: w.lowest.map((l) => ({ recordId: l.record_id, agreement: l.agreement, questions: l.questions, validated: l.validated })),
        review: { reviewed: w.review.reviewed, needingReview: w.review.needing_review },
      };
    });
  }

  listReviewRecords(datasetId: string, query: ReviewListQuery): Promise<ReviewList> {
    return call(ErrorCode.ERROR_FETCHING_RECORDS, async () => {
      const w = await this.http
        .post(`v1/datasets/${seg(datasetId)}/review/records`, {
          searchParams: { offset: query.offset, limit: query.limit },
          json: { ...scopeBody(query), disagreements: query.disagreements, reviewed: query.reviewed },
        })
        .json<{ items: WireItem[]; total: number; review: { reviewed: number; needing_review: number } }>();
      return {
        items: w.items.map(itemFrom),
        total: w.total,
        review: { reviewed: w.review.reviewed, needingReview: w.review.needing_review },
      };
    });
  }

  getReviewItem(recordId: string): Promise<ReviewItem> {
    return call(ErrorCode.ERROR_FETCHING_RECORD_BY_ID, async () =>
      itemFrom(await this.http.get(`v1/records/${seg(recordId)}/review`).json<WireItem>()),
    );
  }

  setFinalAnswer(recordId: string, values: AnswerValues): Promise<void> {
    return call(ErrorCode.ERROR_UPDATING_RECORD_RESPONSE, async () => {
      await this.http.put(`v1/records/${seg(recordId)}/final-answer`, { json: { values: wrap(values) } });
    });
  }

  clearFinalAnswer(recordId: string): Promise<void> {
    return call(ErrorCode.ERROR_DELETING_RECORD_RESPONSE, async () => {
      await this.http.delete(`v1/records/${seg(recordId)}/final-answer`);
    });
  }
}

/** Part of the composition root (called by createContainer): the agreement and review screens. */
export function registerReview(c: DependencyContainer, http: (d: DependencyContainer) => KyInstance): void {
  c.register(REVIEW_TOKENS.ReviewRepository, { useFactory: instanceCachingFactory((d) => new HttpReviewRepository(http(d))) });
  const repo = (d: DependencyContainer) => d.resolve<ReviewRepository>(REVIEW_TOKENS.ReviewRepository);
  c.register(GetAgreementUseCase, { useFactory: instanceCachingFactory((d) => new GetAgreementUseCase(repo(d))) });
  c.register(ListReviewRecordsUseCase, { useFactory: instanceCachingFactory((d) => new ListReviewRecordsUseCase(repo(d))) });
  c.register(GetReviewItemUseCase, { useFactory: instanceCachingFactory((d) => new GetReviewItemUseCase(repo(d))) });
  c.register(SubmitFinalAnswerUseCase, { useFactory: instanceCachingFactory((d) => new SubmitFinalAnswerUseCase(repo(d))) });
  c.register(ClearFinalAnswerUseCase, { useFactory: instanceCachingFactory((d) => new ClearFinalAnswerUseCase(repo(d))) });
}
