import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEmbeddedStore, type Store } from "../db/database.js";
import { seedSearchData } from "../search/search-port.suite.js";
import { addTextRecords } from "./text-records.js";

type TextRecord = Parameters<typeof addTextRecords>[2][number];

/**
 * `n` text records of words in known shares (`common` ~80%, `middle` ~20% and more in the context, `rare` ~1%, `middling`
 * ~30% for prefixes), ~12% completed, `genre` blog or news and, unless `lengths` is false, a `length` in ~85% of them.
 */
export function wordRecords(random: () => number, n: number, lengths = true): TextRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    text: [
      random() < 0.8 ? "common" : "filler",
      random() < 0.2 ? "middle" : "other",
      random() < 0.01 ? "rare" : "",
      "common ".repeat(i % 4),
      random() < 0.3 ? "middling" : "",
    ].join(" "),
    context: random() < 0.3 ? "middle common" : "context",
    metadata: {
      genre: random() < 0.3 ? "blog" : "news",
      ...(lengths && random() < 0.85 ? { length: Math.floor(random() * 60) } : {}),
    },
    status: random() < 0.12 ? "completed" : "pending",
  }));
}

/**
 * A store in a new directory with the search suite's users and datasets, whose dataset holds `n` wordRecords alone in its
 * seq range (the text search's paths from candidates need it), between 300 records of the other dataset before and after.
 */
export async function wordDataset(
  prefix: string,
  random: () => number,
  n: number,
  lengths = true,
): Promise<{ dir: string; store: Store; data: Awaited<ReturnType<typeof seedSearchData>>; ids: string[]; others: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = await openEmbeddedStore(dir);
  const data = await seedSearchData(store);
  await store.db.deleteFrom("records").execute();
  return { dir, store, data, ...(await addWordRecords(store.db, data.ids, random, n, 300, lengths)) };
}

/** `n` wordRecords in the dataset `ids.ds`, between `others` records of the dataset `ids.other` before and after; their ids. */
export async function addWordRecords(
  db: Parameters<typeof addTextRecords>[0],
  ids: { ds: string; other: string },
  random: () => number,
  n: number,
  others: number,
  lengths = true,
): Promise<{ ids: string[]; others: string[] }> {
  const before = await addTextRecords(db, ids.other, wordRecords(random, others, lengths), "o1");
  const added = await addTextRecords(db, ids.ds, wordRecords(random, n, lengths));
  const after = await addTextRecords(db, ids.other, wordRecords(random, others, lengths), "o2");
  return { ids: added, others: [...before, ...after] };
}

/** Texts searched in wordRecords: common, middle and rare words, a phrase, a short and a long prefix, one field, a word in no record. */
export const WORD_QUERIES: { q: string; field: string | null }[] = [
  { q: "common", field: null },
  { q: "middle", field: null },
  { q: "rare", field: null },
  { q: "common middle", field: null },
  { q: "mid*", field: null },
  { q: "middl*", field: null },
  { q: "middle", field: "context" },
  { q: "nothingsuch", field: null },
];
