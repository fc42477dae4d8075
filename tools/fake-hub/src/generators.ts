/** One dataset row, as the Hub viewer returns it. */
export type Row = Record<string, unknown>;

/** mulberry32: a tiny deterministic PRNG, so generated datasets are identical on every machine. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const subjects = [
  "The film",
  "This movie",
  "The plot",
  "The acting",
  "The soundtrack",
  "The ending",
  "The director's work",
  "The cast",
  "The script",
  "The photography",
];
const positive = [
  "was wonderful",
  "moved me deeply",
  "is a delight from start to finish",
  "felt fresh and clever",
  "deserves every award",
  "made me smile",
];
const negative = [
  "was a waste of time",
  "dragged on forever",
  "felt lazy and predictable",
  "made no sense at all",
  "bored me to tears",
  "was painfully bad",
];
const endings = [
  "",
  " Would watch again.",
  " I told all my friends.",
  " Not sure why.",
  " Two hours I will not get back.",
  " Worth the ticket.",
];

/**
 * Named row generators. `sentiment`: movie-review sentences with a ClassLabel `label`
 * (0 negative, 1 positive; every 97th row has -1, the datasets library's "no label").
 */
const generators: Record<string, (seed: number, count: number) => Row[]> = {
  sentiment(seed, count) {
    const random = prng(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const rows: Row[] = [];
    for (let i = 0; i < count; i++) {
      const label = i % 97 === 96 ? -1 : random() < 0.5 ? 0 : 1;
      const verb = label === 0 ? pick(negative) : label === 1 ? pick(positive) : pick([...positive, ...negative]);
      rows.push({ id: `review-${String(i).padStart(5, "0")}`, text: `${pick(subjects)} ${verb}.${pick(endings)} (#${i})`, label });
    }
    return rows;
  },
};

export function generateRows(name: string, seed: number, count: number): Row[] {
  const generator = generators[name];
  if (!generator) throw new Error(`Unknown row generator \`${name}\``);
  return generator(seed, count);
}
