import type { AgreementMetric, Figures } from "../../agreement/question-agreement.js";
import type { AnswerValue, AnswerValues } from "../../entities/answer.js";
import type { QuestionType } from "../../entities/question-type.js";
import type { SearchFilter } from "../../criteria/search-body.js";

/** Ports of the agreement and review screens (bound by the composition root in @tessera/infrastructure). */
export const REVIEW_TOKENS = {
  ReviewRepository: Symbol.for("tessera.ReviewRepository"),
} as const;

/** What the figures and the review list are computed on: one question or all, chosen annotators, record filters (metadata, record status). */
export interface ReviewScope {
  question?: string | null;
  userIds?: string[];
  /** Contract filters on metadata and on the record status. */
  filters?: SearchFilter[];
}

export interface QuestionAgreementReport {
  name: string;
  title: string;
  type: QuestionType;
  records: number;
  responses: number;
  primaryMetric: AgreementMetric;
  pairMetric: AgreementMetric;
  figures: Figures;
  pairs: { userIds: [string, string]; records: number; figures: Figures }[];
  lowest: { recordId: string; agreement: number; responses: number; validated: boolean }[];
}

export interface ReviewProgressReport {
  reviewed: number;
  needingReview: number;
}

export interface AgreementReport {
  datasetId: string;
  records: number;
  responses: number;
  annotators: { id: string; username: string; responses: number }[];
  questions: QuestionAgreementReport[];
  lowest: { recordId: string; agreement: number; questions: string[]; validated: boolean }[];
  review: ReviewProgressReport;
}

export interface ReviewResponse {
  id: string;
  userId: string;
  username: string;
  status: "submitted" | "draft" | "discarded";
  values: AnswerValues;
  insertedAt: string;
  updatedAt: string;
}

export interface ReviewItem {
  record: {
    id: string;
    externalId: string | null;
    fields: { [name: string]: unknown };
    metadata: { [name: string]: unknown } | null;
    status: "pending" | "completed";
    insertedAt: string;
    updatedAt: string;
  };
  responses: ReviewResponse[];
  suggestions: {
    questionId: string;
    questionName: string;
    value: AnswerValue;
    score: number | number[] | null;
    agent: string | null;
    type: "model" | "human" | null;
  }[];
  disagreements: string[];
  majority: AnswerValues;
  finalAnswer: { values: AnswerValues; reviewer: { id: string; username: string } | null; insertedAt: string; updatedAt: string } | null;
  validated: boolean;
}

export interface ReviewList {
  items: ReviewItem[];
  total: number;
  review: ReviewProgressReport;
}

export interface ReviewListQuery extends ReviewScope {
  /** Only records whose submitted responses differ (on `question`, or any). */
  disagreements: boolean;
  /** true: reviewed only; false: not yet reviewed; null: both. */
  reviewed: boolean | null;
  offset: number;
  limit: number;
}

export interface ReviewRepository {
  /** POST /v1/datasets/{id}/agreement. */
  getAgreement(datasetId: string, scope: ReviewScope): Promise<AgreementReport>;
  /** POST /v1/datasets/{id}/review/records. */
  listReviewRecords(datasetId: string, query: ReviewListQuery): Promise<ReviewList>;
  /** GET /v1/records/{id}/review. */
  getReviewItem(recordId: string): Promise<ReviewItem>;
  /** PUT /v1/records/{id}/final-answer. */
  setFinalAnswer(recordId: string, values: AnswerValues): Promise<void>;
  /** DELETE /v1/records/{id}/final-answer. */
  clearFinalAnswer(recordId: string): Promise<void>;
}
