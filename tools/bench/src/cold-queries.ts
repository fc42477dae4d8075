/**
 * Text queries no call asked before (issue 31's cold rows): the server keeps the FTS part of a repeated
 * query, so each call of a cold row must ask something new, from frequency bands known in advance.
 * Band ranks are Zipf ranks of the bench's vocabulary (data.ts); each call takes the next unused
 * offset of its band (+1, -1, +2, -2, ...) and shifts the band's ranks by it.
 */
type WordAt = (rank: number) => string;

/** Offsets +1, -1, +2, -2, ... (step 1, 2, 3, ...). */
const offset = (step: number) => (step % 2 === 1 ? (step + 1) / 2 : -step / 2);

/** A generator cycling through `bands`, giving each call the band's ranks shifted to an unused place (`make` returns null to skip one). */
function coldQueries(
  bands: readonly (readonly number[])[],
  vocabularySize: number,
  make: (ranks: number[]) => string | null,
): () => string {
  const used = new Set<string>();
  const steps = bands.map(() => 0);
  let calls = 0;
  return () => {
    const band = calls++ % bands.length;
    for (let tries = 0; tries < 10_000; tries++) {
      const shift = offset(++steps[band]!);
      const ranks = bands[band]!.map((r) => r + shift);
      if (ranks.some((r) => r < 0 || r >= vocabularySize)) continue;
      const q = make(ranks);
      if (q === null || used.has(q)) continue;
      used.add(q);
      return q;
    }
    throw new Error(`no unused query left in band ${band}`);
  };
}

/**
 * Two or three words that occur together (the bench's text draws words independently, so frequent
 * words co-occur), from common to rare pairs. FTS rows matching all of them at 1M records (2 rows per
 * record): ranks 20+25 ~600K, 20+60 ~320K, 20+40+60 ~180K, 60+200 ~64K, 200+2000 ~2.5K.
 */
export const PHRASE_BANDS: readonly (readonly number[])[] = [
  [20, 25],
  [20, 60],
  [20, 40, 60],
  [60, 200],
  [200, 2000],
];

/**
 * `reversed`: the words from the rarest to the most common, so that two generators (forward and reversed) never give
 * the same query and neither takes the other's: a row of the bench that asks phrases of its own (the Submitted view's)
 * leaves the queue row the same phrases, the same cost, whether it ran before it or not (session 14's queue row got
 * the phrases past the Submitted row's 200, ~16% more CPU per call at 1M).
 */
export function coldPhrases(wordAt: WordAt, vocabularySize: number, bands = PHRASE_BANDS, reversed = false): () => string {
  return coldQueries(bands, vocabularySize, (ranks) => {
    const words = ranks.map(wordAt);
    if (reversed) words.reverse();
    return new Set(words).size === words.length ? words.join(" ") : null;
  });
}

/**
 * A word's first letters with `*` (the search's prefix syntax, `word*`): the word at each band's rank
 * less its last two letters, at least 3 letters kept (shorter words are skipped). The vocabulary is
 * built from syllables, so a prefix matches several words.
 */
export const PREFIX_BANDS: readonly (readonly number[])[] = [[20], [60], [200], [600], [2000]];

export function coldPrefixes(wordAt: WordAt, vocabularySize: number, bands = PREFIX_BANDS): () => string {
  return coldQueries(bands, vocabularySize, ([rank]) => {
    const word = wordAt(rank!);
    return word.length >= 5 ? `${word.slice(0, word.length - 2)}*` : null;
  });
}
