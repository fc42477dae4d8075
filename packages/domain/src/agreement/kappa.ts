import { figure, type AgreementFigure } from "./figure.js";

/**
 * Cohen's kappa of two annotators over the records both answered: (p_o - p_e) / (1 - p_e), p_e from
 * each annotator's own label frequencies. `pairs` are the two annotators' (canonical) answers per record.
 * Undefined (null) when p_e = 1 (both always gave the same single label).
 */
export function cohenKappa(pairs: readonly (readonly [string, string])[]): AgreementFigure {
  const n = pairs.length;
  if (n === 0) return figure(null, 0, 0);
  const left = new Map<string, number>();
  const right = new Map<string, number>();
  let agree = 0;
  for (const [a, b] of pairs) {
    if (a === b) agree++;
    left.set(a, (left.get(a) ?? 0) + 1);
    right.set(b, (right.get(b) ?? 0) + 1);
  }
  return cohenFromCounts(n, agree, left, right);
}

/** Cohen's kappa from the tallies `cohenKappa` keeps (the server accumulates them record by record). */
export function cohenFromCounts<K>(n: number, agree: number, left: ReadonlyMap<K, number>, right: ReadonlyMap<K, number>): AgreementFigure {
  if (n === 0) return figure(null, 0, 0);
  let chance = 0;
  for (const [label, count] of left) chance += (count / n) * ((right.get(label) ?? 0) / n);
  const observed = agree / n;
  return figure(chance === 1 ? null : (observed - chance) / (1 - chance), n, 2 * n);
}

/**
 * Fleiss' kappa: defined only when every record has the same number m >= 2 of answers; null
 * otherwise (with the counts of the records it would be computed on).
 */
export function fleissKappa(units: readonly (readonly string[])[]): AgreementFigure {
  const pairable = units.filter((u) => u.length >= 2);
  const responses = pairable.reduce((s, u) => s + u.length, 0);
  if (pairable.length === 0) return figure(null, 0, 0);
  const m = pairable[0]!.length;
  if (pairable.some((u) => u.length !== m)) return figure(null, pairable.length, responses);
  const totals = new Map<string, number>();
  let agreement = 0;
  for (const unit of pairable) {
    const counts = new Map<string, number>();
    for (const v of unit) counts.set(v, (counts.get(v) ?? 0) + 1);
    let sq = 0;
    for (const [v, c] of counts) {
      sq += c * c;
      totals.set(v, (totals.get(v) ?? 0) + c);
    }
    agreement += (sq - m) / (m * (m - 1));
  }
  const observed = agreement / pairable.length;
  let chance = 0;
  for (const c of totals.values()) chance += (c / responses) ** 2;
  return figure(chance === 1 ? null : (observed - chance) / (1 - chance), pairable.length, responses);
}

/**
 * Percent agreement: for each record with two or more answers, the share of its annotator pairs
 * that gave the same answer; the mean over those records (0..1).
 */
export function percentAgreement(units: readonly (readonly string[])[]): AgreementFigure {
  let records = 0;
  let responses = 0;
  let sum = 0;
  for (const unit of units) {
    if (unit.length < 2) continue;
    records++;
    responses += unit.length;
    sum += unitAgreement(unit);
  }
  return figure(records === 0 ? null : sum / records, records, responses);
}

/** The share of agreeing pairs among one record's answers (1 with fewer than two answers). */
export function unitAgreement(unit: readonly string[]): number {
  if (unit.length < 2) return 1;
  const counts = new Map<string, number>();
  for (const v of unit) counts.set(v, (counts.get(v) ?? 0) + 1);
  let agreeing = 0;
  for (const c of counts.values()) agreeing += (c * (c - 1)) / 2;
  return agreeing / ((unit.length * (unit.length - 1)) / 2);
}
