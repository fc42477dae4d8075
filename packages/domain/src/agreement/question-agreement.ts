import type { AnswerValue, OptionValue, RankingItem, SpanItem } from "../entities/answer.js";
import type { QuestionType } from "../entities/question-type.js";
import { answerKey } from "./answer-key.js";
import { intervalDistance, jaccardDistance, ordinalDistance, rankDistance } from "./distances.js";
import { figure, type AgreementFigure } from "./figure.js";
import { cohenFromCounts } from "./kappa.js";
import { alphaOfIds, DistanceTable, Interner } from "./krippendorff-alpha.js";
import { exactSpanTally, f1Of, tokenize, tokenSpanTally, type SpanTally } from "./span-f1.js";

/** The figures a question can have, by type (see `METRICS_BY_TYPE`). */
export type AgreementMetric =
  | "alpha_nominal"
  | "alpha_interval"
  | "alpha_ordinal"
  | "alpha_jaccard"
  | "alpha_rank"
  | "fleiss_kappa"
  | "cohen_kappa"
  | "percent_agreement"
  | "span_f1_exact"
  | "span_f1_token";

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

export interface AgreementQuestion {
  name: string;
  type: QuestionType;
  options?: { value: OptionValue }[];
}

/** One record's submitted answers to one question (one per annotator). */
export interface AnnotatedRecord {
  recordId: string;
  answers: { userId: string; value: AnswerValue }[];
  /** Span questions: the text of the annotated field (token-overlap F1). */
  text?: string;
}

export type Figures = Partial<Record<AgreementMetric, AgreementFigure>>;
export interface PairAgreement {
  users: [string, string];
  records: number;
  figures: Figures;
}
/** A record's agreement: the mean similarity (0..1) of its annotator pairs. */
export interface RecordAgreement {
  recordId: string;
  agreement: number;
  responses: number;
}

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
  /** Every record whose answers are not all equal (a disagreement, see `disagreesOn`), in input order. */
  disagreeing: string[];
}

type Dissimilarity = (a: AnswerValue, b: AnswerValue) => number;

/** The distance of the type's alpha (nominal labels, interval ratings, Jaccard sets, rank distance), or null (span, text). */
function alphaDistance(type: QuestionType): { metric: AgreementMetric; distance: Dissimilarity } | null {
  switch (type) {
    case "label_selection":
      return { metric: "alpha_nominal", distance: () => 1 };
    case "rating":
      return { metric: "alpha_interval", distance: (a, b) => intervalDistance(Number(a), Number(b)) };
    case "multi_label_selection":
      return { metric: "alpha_jaccard", distance: (a, b) => jaccardDistance(a as OptionValue[], b as OptionValue[]) };
    case "ranking":
      return { metric: "alpha_rank", distance: (a, b) => rankDistance(a as RankingItem[], b as RankingItem[]) };
    default:
      return null;
  }
}

/** 1 - similarity of two different answers, for a record's agreement score (0 = same answer). */
function dissimilarityFor(question: AgreementQuestion): Dissimilarity {
  switch (question.type) {
    case "rating": {
      const values = (question.options ?? []).map((o) => Number(o.value));
      const range = values.length > 1 ? Math.max(...values) - Math.min(...values) : 0;
      return (a, b) => (range === 0 ? 1 : Math.abs(Number(a) - Number(b)) / range);
    }
    case "multi_label_selection":
      return (a, b) => jaccardDistance(a as OptionValue[], b as OptionValue[]);
    case "ranking":
      return (a, b) => rankDistance(a as RankingItem[], b as RankingItem[]);
    case "span":
      return (a, b) => 1 - (f1Of(exactSpanTally(a as SpanItem[], b as SpanItem[])) ?? 1);
    default:
      return () => 1;
  }
}

interface PairTally {
  users: [string, string];
  /** The pair's two answer ids per record, back to back (first user, second user). */
  ids: number[];
  agree: number;
  exact: SpanTally;
  token: SpanTally;
}

/**
 * Agreement of one question over records of submitted answers: dataset-level figures by type,
 * figures per annotator pair (the records both answered), and the records with the lowest agreement.
 * Records with fewer than two answers count nowhere. Answers are interned (one id per distinct
 * answer), so every distance is computed once per pair of distinct answers: 100K records of three
 * answers take a few hundred milliseconds.
 */
export function questionAgreement(question: AgreementQuestion, records: readonly AnnotatedRecord[], lowestCount = 20): QuestionAgreement {
  const type = question.type;
  const values = new Interner<AnswerValue>();
  const scalar = type === "label_selection" || type === "rating";
  const annotators = new Interner<string>();
  const ids: number[] = [];
  /** Annotator index per answer (interned user ids). */
  const users: number[] = [];
  const starts: number[] = [0];
  const units: AnnotatedRecord[] = [];
  for (const record of records) {
    if (record.answers.length < 2) continue;
    for (const answer of record.answers) {
      // label and rating answers are their own keys (a Map tells 1 from "1"); others get a canonical string
      const key =
        scalar && (typeof answer.value === "number" || typeof answer.value === "string") ? answer.value : answerKey(type, answer.value);
      ids.push(values.id(key, answer.value));
      users.push(annotators.id(answer.userId, answer.userId));
    }
    starts.push(ids.length);
    units.push(record);
  }
  const raw = values.values;
  const counts = new Float64Array(values.size);
  for (const id of ids) counts[id]!++;
  const alpha = alphaDistance(type);
  const distance = alpha ? new DistanceTable(values.size, (a, b) => alpha.distance(raw[a]!, raw[b]!)) : null;
  const dissimilarity = dissimilarityFor(question);
  const unlike = new DistanceTable(values.size, (a, b) => dissimilarity(raw[a]!, raw[b]!));
  const pairs = new Map<number, PairTally>();
  const names = annotators.values;
  const candidates: RecordAgreement[] = [];
  const disagreeing: string[] = [];
  const datasetExact: SpanTally = { matched: 0, total: 0 };
  const datasetToken: SpanTally = { matched: 0, total: 0 };
  let agreementSum = 0;
  let equalSizes = true;

  for (let u = 0; u < units.length; u++) {
    const from = starts[u]!;
    const to = starts[u + 1]!;
    if (to - from !== starts[1]! - starts[0]!) equalSizes = false;
    let tokens: [number, number][] | null = null;
    let unlikeSum = 0;
    let agreeing = 0;
    for (let i = from; i < to; i++) {
      for (let j = i + 1; j < to; j++) {
        const ordered = names[users[i]!]! < names[users[j]!]!;
        const x = ordered ? i : j;
        const y = ordered ? j : i;
        const id = users[x]! * 65536 + users[y]!;
        let tally = pairs.get(id);
        if (!tally) {
          tally = {
            users: [names[users[x]!]!, names[users[y]!]!],
            ids: [],
            agree: 0,
            exact: { matched: 0, total: 0 },
            token: { matched: 0, total: 0 },
          };
          pairs.set(id, tally);
        }
        tally.ids.push(ids[x]!, ids[y]!);
        if (ids[x] === ids[y]) {
          tally.agree++;
          agreeing++;
        }
        if (type === "span") {
          tokens ??= tokenize(units[u]!.text ?? "");
          const a = raw[ids[x]!] as SpanItem[];
          const b = raw[ids[y]!] as SpanItem[];
          const exact = exactSpanTally(a, b);
          const token = tokenSpanTally(a, b, tokens);
          for (const [into, add] of [
            [tally.exact, exact],
            [tally.token, token],
            [datasetExact, exact],
            [datasetToken, token],
          ] as const) {
            into.matched += add.matched;
            into.total += add.total;
          }
        }
        unlikeSum += unlike.get(ids[i]!, ids[j]!);
      }
    }
    const m = to - from;
    const pairCount = (m * (m - 1)) / 2;
    agreementSum += agreeing / pairCount;
    if (agreeing < pairCount) disagreeing.push(units[u]!.recordId);
    const agreement = 1 - unlikeSum / pairCount;
    if (agreement < 1) candidates.push({ recordId: units[u]!.recordId, agreement, responses: m });
  }

  const n = ids.length;
  const figures: Figures = {};
  const wanted = new Set(METRICS_BY_TYPE[type]);
  if (alpha && distance) figures[alpha.metric] = alphaOfIds(ids, starts, counts, distance);
  if (wanted.has("alpha_ordinal")) {
    const byNumber = new Map<number, number>();
    raw.forEach((value, id) => byNumber.set(Number(value), (byNumber.get(Number(value)) ?? 0) + counts[id]!));
    const ordinal = ordinalDistance(byNumber);
    figures.alpha_ordinal = alphaOfIds(
      ids,
      starts,
      counts,
      new DistanceTable(values.size, (a, b) => ordinal(Number(raw[a]), Number(raw[b]))),
    );
  }
  if (wanted.has("fleiss_kappa")) {
    let chance = 0;
    for (const c of counts) chance += (c / n) ** 2;
    const value = units.length === 0 || !equalSizes || chance === 1 ? null : (agreementSum / units.length - chance) / (1 - chance);
    figures.fleiss_kappa = figure(value, units.length, n);
  }
  if (wanted.has("percent_agreement"))
    figures.percent_agreement = figure(units.length === 0 ? null : agreementSum / units.length, units.length, n);
  if (type === "span") {
    figures.span_f1_exact = figure(f1Of(datasetExact), units.length, n);
    figures.span_f1_token = figure(f1Of(datasetToken), units.length, n);
  }

  const pairWanted = new Set(PAIR_METRICS_BY_TYPE[type]);
  let pairStarts = new Int32Array(0);
  const pairList: PairAgreement[] = [...pairs.values()]
    .map((tally) => {
      const count = tally.ids.length / 2;
      const pairFigures: Figures = {};
      if (pairWanted.has("cohen_kappa")) {
        const left = new Float64Array(values.size);
        const right = new Float64Array(values.size);
        for (let i = 0; i < tally.ids.length; i += 2) {
          left[tally.ids[i]!]!++;
          right[tally.ids[i + 1]!]!++;
        }
        const toMap = (counts: Float64Array) => new Map([...counts.entries()].filter(([, c]) => c > 0));
        pairFigures.cohen_kappa = cohenFromCounts(count, tally.agree, toMap(left), toMap(right));
      }
      if (alpha && distance && pairWanted.has(alpha.metric)) {
        if (pairStarts.length <= count) pairStarts = Int32Array.from({ length: count + 1 }, (_, i) => 2 * i);
        const pairCounts = new Float64Array(values.size);
        for (const id of tally.ids) pairCounts[id]!++;
        pairFigures[alpha.metric] = alphaOfIds(tally.ids, pairStarts.subarray(0, count + 1), pairCounts, distance);
      }
      if (type !== "span") pairFigures.percent_agreement = figure(tally.agree / count, count, 2 * count);
      if (type === "span") {
        pairFigures.span_f1_exact = figure(f1Of(tally.exact), count, 2 * count);
        pairFigures.span_f1_token = figure(f1Of(tally.token), count, 2 * count);
      }
      return { users: tally.users, records: count, figures: pairFigures };
    })
    .sort((a, b) => (a.users.join() < b.users.join() ? -1 : 1));

  return {
    question: question.name,
    type,
    records: units.length,
    responses: n,
    figures,
    pairs: pairList,
    lowest: lowestRecords(candidates, lowestCount),
    disagreeing,
  };
}

/** The `count` records of lowest agreement (ties: more answers first, then record id), without sorting them all. */
export function lowestRecords(records: readonly RecordAgreement[], count: number): RecordAgreement[] {
  const order = (a: RecordAgreement, b: RecordAgreement) =>
    a.agreement - b.agreement || b.responses - a.responses || (a.recordId < b.recordId ? -1 : a.recordId > b.recordId ? 1 : 0);
  const kept: RecordAgreement[] = [];
  for (const r of records) {
    if (r.agreement >= 1) continue;
    if (kept.length < count) {
      kept.push(r);
      kept.sort(order);
      continue;
    }
    if (order(r, kept[kept.length - 1]!) < 0) {
      kept[kept.length - 1] = r;
      kept.sort(order);
    }
  }
  return kept;
}
