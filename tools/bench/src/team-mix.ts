import type { Annotator } from "./api.ts";
import type { Scenario } from "./latency.ts";
import { summarize, type Summary } from "./stats.ts";

/**
 * A team at work: each call is one of the single-call scenarios, drawn by weight, so that 50 clients
 * send what 50 annotators send together, not 50 new phrases a second. The annotation page's loop per
 * record is three calls (the next page, Submit, 'My progress' after it); searching, filtering and
 * similarity are the other 16%, which is more than an annotator does (one in six calls a search or a
 * filter). The single-call rows stay: they are the stress test of one call; this row is the team.
 */
export const TEAM_MIX: ReadonlyArray<readonly [name: string, weight: number]> = [
  ["next page of pending (10)", 28],
  ["submit a response", 28],
  ["my progress (after each Submit)", 28],
  ["text search (pending, 10)", 2],
  ["text search, new word each call (cold)", 2],
  ["text search, new word + metadata filter (cold)", 2],
  ["text search, new phrase each call (cold)", 2],
  ["text search, new prefix each call (cold)", 2],
  ["metadata filter + count", 2],
  ["similarity top-50", 2],
  ["similarity top-50, least similar", 1],
  ["submitted list (no text)", 1],
];

/** Records the mix submits per call (the submit row's weight: one record each). */
export const TEAM_MIX_SUBMIT_SHARE = TEAM_MIX.find(([name]) => name === "submit a response")![1] / TEAM_MIX.reduce((s, [, w]) => s + w, 0);

export const TEAM_MIX_NAME = "team at work (weighted mix of the calls above)";

/** One period of the mix: every call's share in a fixed order, shuffled by a seeded generator (the same mix each run). */
export function mixPattern(weights: ReadonlyArray<readonly [string, number]> = TEAM_MIX, seed = 1): string[] {
  const pattern = weights.flatMap(([name, weight]) => Array.from({ length: weight }, () => name));
  let state = seed >>> 0 || 1;
  const random = () => {
    // xorshift32: a reproducible order, not a secure one
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  for (let i = pattern.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [pattern[i], pattern[j]] = [pattern[j]!, pattern[i]!];
  }
  return pattern;
}

export interface TeamMix {
  scenario: Scenario;
  /** Each call's latency within the mix (warm-up calls not counted), by the single-call scenario's name. */
  byCall(wallMs: number): Map<string, Summary>;
}

/** The mix as one scenario over `all` (each timed call also recorded under its own name). */
export function teamMix(all: readonly Scenario[], weights: ReadonlyArray<readonly [string, number]> = TEAM_MIX): TeamMix {
  const byName = new Map(all.map((s) => [s.name, s]));
  const missing = weights.filter(([name]) => !byName.has(name)).map(([name]) => name);
  if (missing.length > 0) throw new Error(`team mix: no scenario named ${missing.join(", ")}`);
  const pattern = mixPattern(weights);
  const samples = new Map<string, number[]>(weights.map(([name]) => [name, []]));
  const errors = new Map<string, number>(weights.map(([name]) => [name, 0]));
  return {
    scenario: {
      name: TEAM_MIX_NAME,
      recordsPerRequest: 0,
      run: async (client: Annotator, i: number) => {
        // Warm-up calls (negative i) go through the same pattern, not recorded; one that fails does not stop
        // the mix (its timed calls then count as errors on its own row and in the bench's problems).
        const name = pattern[((i % pattern.length) + pattern.length) % pattern.length]!;
        const t0 = performance.now();
        try {
          await byName.get(name)!.run(client, i);
        } catch (error) {
          if (i < 0) return;
          errors.set(name, errors.get(name)! + 1);
          throw error;
        }
        if (i >= 0) samples.get(name)!.push(performance.now() - t0);
      },
    },
    byCall: (wallMs) => new Map([...samples].map(([name, s]) => [name, summarize(s, errors.get(name)!, wallMs)])),
  };
}
