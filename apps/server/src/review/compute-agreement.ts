import type { Kysely } from "kysely";
import { primaryMetric, primaryPairMetric, questionAgreement, type AgreementFigure, type QuestionType } from "@tessera/domain";
import type { DB } from "../db/schema.js";
import type { QuestionDef } from "../records/dataset-schema.js";
import { annotatedRecords, finalAnswerIds, loadSubmissions, type RecordSubmissions } from "./submitted-answers.js";
import { questionsOf, summaryProgress } from "./progress.js";
import type { ReviewScope } from "./scope.js";
import { figuresCache, scopeKey } from "./agreement-cache.js";

type FiguresOut = Record<string, AgreementFigure>;
export interface AgreementOut {
  dataset_id: string;
  /** Records in the scope with at least one submitted response, and those responses. */
  records: number;
  responses: number;
  annotators: { id: string; username: string; responses: number }[];
  questions: {
    name: string;
    title: string;
    type: QuestionType;
    records: number;
    responses: number;
    primary_metric: string;
    pair_metric: string;
    figures: FiguresOut;
    pairs: { user_ids: [string, string]; records: number; figures: FiguresOut }[];
    lowest: { record_id: string; agreement: number; responses: number; validated: boolean }[];
  }[];
  /** Records of lowest agreement over every question (each record's lowest), at most 20. */
  lowest: { record_id: string; agreement: number; questions: string[]; validated: boolean }[];
  review: { reviewed: number; needing_review: number };
}

const LOWEST = 20;

/** Span questions need the annotated text of each record answered twice or more (token-overlap F1). */
async function spanTexts(
  db: Kysely<DB>,
  questions: QuestionDef[],
  submissions: RecordSubmissions[],
): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  if (!questions.some((q) => q.settings.type === "span")) return out;
  const ids = submissions.filter((s) => s.responses.length >= 2).map((s) => s.recordId);
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom("records")
      .select(["id", "fields"])
      .where("id", "in", ids.slice(i, i + 500))
      .execute();
    for (const row of rows) out.set(row.id, JSON.parse(row.fields) as Record<string, unknown>);
  }
  return out;
}

/** What the agreement of a scope computes from the submitted responses alone (cached); final answers are added per call. */
interface AgreementFigures {
  out: Omit<AgreementOut, "review">;
  /** The scope's answered records, in insertion order, and those whose answers differ. */
  recordIds: string[];
  disagreeing: Set<string>;
}

/**
 * Agreement figures of a dataset's scope (issue 22): per question, per annotator pair, lowest
 * records, review progress. The figures come from the cache while the dataset's answers (its
 * answers version, migration 0023), questions and the scope are unchanged (review/agreement-cache.ts);
 * final answers (the `validated` flags, review progress) are read on every call.
 */
export async function computeAgreement(db: Kysely<DB>, scope: ReviewScope): Promise<AgreementOut> {
  const key = `agreement:${await scopeKey(db, scope)}`;
  const figures = await figuresCache.through(
    key,
    () => agreementFigures(db, scope),
    (f) => f.recordIds.length + 1,
  );
  const finals = await finalAnswerIds(db, scope.dataset.id);
  const out = figures.out;
  return {
    ...out,
    questions: out.questions.map((q) => ({ ...q, lowest: q.lowest.map((l) => ({ ...l, validated: finals.has(l.record_id) })) })),
    lowest: out.lowest.map((l) => ({ ...l, validated: finals.has(l.record_id) })),
    review: summaryProgress({ recordIds: figures.recordIds, disagreeing: figures.disagreeing }, finals),
  };
}

async function agreementFigures(db: Kysely<DB>, scope: ReviewScope): Promise<AgreementFigures> {
  const loaded = await loadSubmissions(db, scope, questionsOf(scope.schema, scope.question));
  const submissions = loaded.records;
  const titles = new Map(
    (await db.selectFrom("questions").select(["name", "title"]).where("dataset_id", "=", scope.dataset.id).execute()).map((q) => [
      q.name,
      q.title,
    ]),
  );
  const questions = scope.question ? [scope.question] : scope.schema.questions;
  const texts = await spanTexts(db, questions, submissions);
  const perUser = new Map<string, number>();
  let responses = 0;
  for (const record of submissions) {
    for (const r of record.responses) perUser.set(r.userId, (perUser.get(r.userId) ?? 0) + 1);
    responses += record.responses.length;
  }
  const users =
    perUser.size > 0
      ? await db
          .selectFrom("users")
          .select(["id", "username"])
          .where("id", "in", [...perUser.keys()])
          .execute()
      : [];
  const lowestByRecord = new Map<string, { agreement: number; questions: string[] }>();

  const disagreeing = new Set<string>();
  const questionsOut = questions.map((question, index) => {
    const type = question.settings.type;
    const field = type === "span" ? (question.settings as { field: string }).field : null;
    const textOf = field
      ? (recordId: string) => {
          const text = texts.get(recordId)?.[field];
          return typeof text === "string" ? text : undefined;
        }
      : undefined;
    const annotated = annotatedRecords(loaded, index, textOf);
    const options = "options" in question.settings ? question.settings.options : [];
    const result = questionAgreement({ name: question.name, type, options }, annotated, LOWEST);
    for (const id of result.disagreeing) disagreeing.add(id);
    for (const low of result.lowest) {
      const entry = lowestByRecord.get(low.recordId) ?? { agreement: 1, questions: [] };
      entry.agreement = Math.min(entry.agreement, low.agreement);
      entry.questions.push(question.name);
      lowestByRecord.set(low.recordId, entry);
    }
    return {
      name: question.name,
      title: titles.get(question.name) ?? question.name,
      type,
      records: result.records,
      responses: result.responses,
      primary_metric: primaryMetric(type),
      pair_metric: primaryPairMetric(type),
      figures: result.figures as FiguresOut,
      pairs: result.pairs.map((p) => ({ user_ids: p.users, records: p.records, figures: p.figures as FiguresOut })),
      lowest: result.lowest.map((l) => ({
        record_id: l.recordId,
        agreement: l.agreement,
        responses: l.responses,
        validated: false,
      })),
    };
  });

  const out: AgreementFigures["out"] = {
    dataset_id: scope.dataset.id,
    records: submissions.length,
    responses,
    annotators: users
      .map((u) => ({ id: u.id, username: u.username, responses: perUser.get(u.id) ?? 0 }))
      .sort((a, b) => a.username.localeCompare(b.username)),
    questions: questionsOut,
    lowest: [...lowestByRecord.entries()]
      .map(([id, v]) => ({ record_id: id, agreement: v.agreement, questions: v.questions, validated: false }))
      .sort((a, b) => a.agreement - b.agreement || (a.record_id < b.record_id ? -1 : 1))
      .slice(0, LOWEST),
  };
  return { out, recordIds: submissions.map((r) => r.recordId), disagreeing };
}
