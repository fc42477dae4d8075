import type { AnswerValue, OptionValue, RankingItem, SpanItem } from "../entities/answer.js";
import type { QuestionType } from "../entities/question-type.js";
import { answerKey } from "./answer-key.js";
import { intervalDistance, jaccardDistance, nominalDistance, ordinalDistance, rankDistance } from "./distances.js";
import { figure, type AgreementFigure } from "./figure.js";
import { cohenFromCounts, fleissKappa, percentAgreement } from "./kappa.js";
import { krippendorffAlpha } from "./krippendorff-alpha.js";
import { exactSpanTally, f1Of, tokenize, tokenSpanTally, type SpanTally } from "./span-f1.js";

/** The figures a question can have, by type (see `METRICS_BY_TYPE`). */
export type AgreementMetric =
  | "alpha_nominal" | "alpha_interval" | "alpha_ordinal" | "alpha_jaccard" | "alpha_rank"
  | "fleiss_kappa" | "cohen_kappa" | "percent_agreement" | "span_f1_exact" | "span_f1_token";

/** Dataset-level figures per question type; text has only the share of identical answers. */
export const METRICS_BY_TYPE: Record<QuestionType, AgreementMetric[]> = {
  label_selection: ["alpha_nominal", "fleiss_kappa", "percent_agreement"],
  rating: ["alpha_interval", "alpha_ordinal", "fleiss_kappa", "percent_agreement"],
  multi_label_selection: ["alpha_jaccard", "percent_agreement"],
  ranking: ["alpha_rank", "percent_agreement"],
  span: ["span_f1_exact", "span_f1_token"],
  text: ["percent_agreement"],
};

/** Figures per annotator pair, by type. */
export const PAIR_METRICS_BY_TYPE: Record<QuestionType, AgreementMetric[]> = {
  label_selection: ["cohen_kappa", "alpha_nominal", "percent_agreement"],
  rating: ["cohen_kappa", "alpha_interval", "percent_agreement"],
  multi_label_selection: ["alpha_jaccard", "percent_agreement"],
  ranking: ["alpha_rank", "percent_agreement"],
  span: ["span_f1_exact", "span_f1_token"],
  text: ["percent_agreement"],
};

/** The headline figure of a question (first of its list) and of a pair. */
export const primaryMetric = (type: QuestionType): AgreementMetric => METRICS_BY_TYPE[type][0]!;
export const primaryPairMetric = (type: QuestionType): AgreementMetric => PAIR_METRICS_BY_TYPE[type][0]!;

export interface AgreementQuestion { name: string; type: QuestionType; options?: { value: OptionValue }[] }

/** One record's submitted answers to one question (one per annotator). */
export interface AnnotatedRecord {
  recordId: string;
  answers: { userId: string; value: AnswerValue }[];
  /** Span questions: the text of the annotated field (token-overlap F1). */
  text?: string;
}

export type Figures = Partial<Record<AgreementMetric, AgreementFigure>>;
export interface PairAgreement { users: [string, string]; records: number; figures: Figures }
/** A record's agreement: the mean similarity (0..1) of its annotator pairs. */
export interface RecordAgreement { recordId: string; agreement: number; responses: number }

export interface QuestionAgreement {
  question: string;
  type: QuestionType;
  /** Records with two or more submitted answers, and their answers. */
  records: number;
  responses: number;
  figures: Figures;
  pairs: PairAgreement[];
  /** The records with the lowest agreement, lowest first (at most `lowestCount`). */
  lowest: RecordAgreement[];
}

interface Value { key: string; raw: AnswerValue }

/** Similarity (1 - normalized distance) of two answers for a record's agreement score. */
function similarityFor(question: AgreementQuestion): (a: Value, b: Value) => number {
  switch (question.type) {
    case "rating": {
      const values = (question.options ?? []).map((o) => Number(o.value));
      const range = values.length > 1 ? Math.max(...values) - Math.min(...values) : 0;
      return (a, b) => (range === 0 ? (a.key === b.key ? 1 : 0) : 1 - Math.abs(Number(a.raw) - Number(b.raw)) / range);
    }
    case "multi_label_selection": return (a, b) => 1 - jaccardDistance(a.raw as OptionValue[], b.raw as OptionValue[]);
    case "ranking": return (a, b) => 1 - rankDistance(a.raw as RankingItem[], b.raw as RankingItem[]);
    case "span": return (a, b) => f1Of(exactSpanTally(a.raw as SpanItem[], b.raw as SpanItem[])) ?? 1;
    default: return (a, b) => (a.key === b.key ? 1 : 0);
  }
}

function alphaOf(type: QuestionType, units: Value[][]): Figures {
  const key = (v: Value) => v.key;
  switch (type) {
    case "label_selection":
      return { alpha_nominal: krippendorffAlpha(units, key, (a, b) => nominalDistance(a.key, b.key)) };
    case "rating": {
      const interval = krippendorffAlpha(units, key, (a, b) => intervalDistance(Number(a.raw), Number(b.raw)));
      const ordinal = krippendorffAlpha(units, key, (counts: Map<string, { value: Value; count: number }>) => {
        const byNumber = new Map([...counts.values()].map((c) => [Number(c.value.raw), c.count]));
        const d = ordinalDistance(byNumber);
        return (a: Value, b: Value) => d(Number(a.raw), Number(b.raw));
      }, true);
      return { alpha_interval: interval, alpha_ordinal: ordinal };
    }
    case "multi_label_selection":
      return { alpha_jaccard: krippendorffAlpha(units, key, (a, b) => jaccardDistance(a.raw as OptionValue[], b.raw as OptionValue[])) };
    case "ranking":
      return { alpha_rank: krippendorffAlpha(units, key, (a, b) => rankDistance(a.raw as RankingItem[], b.raw as RankingItem[])) };
    default:
      return {};
  }
}

interface PairTally {
  users: [string, string];
  units: Value[][];
  agree: number;
  left: Map<string, number>;
  right: Map<string, number>;
  exact: SpanTally;
  token: SpanTally;
}

/**
 * Agreement of one question over records of submitted answers: dataset-level figures by type,
 * figures per annotator pair (the records both answered), and the records with the lowest agreement.
 * Records with fewer than two answers count nowhere.
 */
export function questionAgreement(question: AgreementQuestion, records: readonly AnnotatedRecord[], lowestCount = 20): QuestionAgreement {
  const type = question.type;
  const similarity = similarityFor(question);
  const units: Value[][] = [];
  const keyUnits: string[][] = [];
  const pairs = new Map<string, PairTally>();
  const perRecord: RecordAgreement[] = [];
  const datasetExact: SpanTally = { matched: 0, total: 0 };
  const datasetToken: SpanTally = { matched: 0, total: 0 };
  let responses = 0;

  for (const record of records) {
    if (record.answers.length < 2) continue;
    const answers = [...record.answers].sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
    const values = answers.map((a) => ({ key: answerKey(type, a.value), raw: a.value }));
    units.push(values);
    keyUnits.push(values.map((v) => v.key));
    responses += values.length;
    let tokens: [number, number][] | null = null;
    const tokensOf = () => (tokens ??= tokenize(record.text ?? ""));
    let similaritySum = 0;
    let pairCount = 0;
    for (let i = 0; i < answers.length; i++) {
      for (let j = i + 1; j < answers.length; j++) {
        const a = values[i]!;
        const b = values[j]!;
        const id = `${answers[i]!.userId}\u0000${answers[j]!.userId}`;
        let tally = pairs.get(id);
        if (!tally) {
          tally = { users: [answers[i]!.userId, answers[j]!.userId], units: [], agree: 0, left: new Map(), right: new Map(), exact: { matched: 0, total: 0 }, token: { matched: 0, total: 0 } };
          pairs.set(id, tally);
        }
        tally.units.push([a, b]);
        if (a.key === b.key) tally.agree++;
        tally.left.set(a.key, (tally.left.get(a.key) ?? 0) + 1);
        tally.right.set(b.key, (tally.right.get(b.key) ?? 0) + 1);
        if (type === "span") {
          const exact = exactSpanTally(a.raw as SpanItem[], b.raw as SpanItem[]);
          const token = tokenSpanTally(a.raw as SpanItem[], b.raw as SpanItem[], tokensOf());
          for (const [into, from] of [[tally.exact, exact], [tally.token, token], [datasetExact, exact], [datasetToken, token]] as const) {
            into.matched += from.matched;
            into.total += from.total;
          }
        }
        similaritySum += similarity(a, b);
        pairCount++;
      }
    }
    perRecord.push({ recordId: record.recordId, agreement: similaritySum / pairCount, responses: values.length });
  }

  const figures: Figures = {};
  const wanted = new Set(METRICS_BY_TYPE[type]);
  Object.assign(figures, alphaOf(type, units));
  if (wanted.has("fleiss_kappa")) figures.fleiss_kappa = fleissKappa(keyUnits);
  if (wanted.has("percent_agreement")) figures.percent_agreement = percentAgreement(keyUnits);
  if (type === "span") {
    figures.span_f1_exact = figure(f1Of(datasetExact), units.length, responses);
    figures.span_f1_token = figure(f1Of(datasetToken), units.length, responses);
  }

  const pairList: PairAgreement[] = [...pairs.values()].map((tally) => {
    const n = tally.units.length;
    const pairFigures: Figures = {};
    const pairWanted = new Set(PAIR_METRICS_BY_TYPE[type]);
    if (pairWanted.has("cohen_kappa")) pairFigures.cohen_kappa = cohenFromCounts(n, tally.agree, tally.left, tally.right);
    if (type !== "span") pairFigures.percent_agreement = figure(tally.agree / n, n, 2 * n);
    for (const [metric, value] of Object.entries(alphaOf(type, tally.units))) {
      if (pairWanted.has(metric as AgreementMetric)) pairFigures[metric as AgreementMetric] = value;
    }
    if (type === "span") {
      pairFigures.span_f1_exact = figure(f1Of(tally.exact), n, 2 * n);
      pairFigures.span_f1_token = figure(f1Of(tally.token), n, 2 * n);
    }
    return { users: tally.users, records: n, figures: pairFigures };
  }).sort((a, b) => (a.users.join() < b.users.join() ? -1 : 1));

  const lowest = lowestRecords(perRecord, lowestCount);
  return { question: question.name, type, records: units.length, responses, figures, pairs: pairList, lowest };
}

/** The `count` records of lowest agreement (ties: more answers first, then record id), without sorting them all. */
export function lowestRecords(records: readonly RecordAgreement[], count: number): RecordAgreement[] {
  const order = (a: RecordAgreement, b: RecordAgreement) => a.agreement - b.agreement || b.responses - a.responses || (a.recordId < b.recordId ? -1 : a.recordId > b.recordId ? 1 : 0);
  const kept: RecordAgreement[] = [];
  for (const r of records) {
    if (r.agreement >= 1) continue;
    if (kept.length < count) { kept.push(r); kept.sort(order); continue; }
    if (order(r, kept[kept.length - 1]!) < 0) { kept[kept.length - 1] = r; kept.sort(order); }
  }
  return kept;
}
