/**
 * Where a text search for a word never searched before spends its time (issue 31), step by step, on
 * a data directory kept by `bench --keep-data`: the same SQL as apps/server/src/search/sqlite-text.ts
 * run alone with better-sqlite3 (read-only), CPU ms of this process per step, for the words of the
 * bench's new-word bands (Zipf ranks 20, 60, 200, 600, 2000), then what ranking every frequent word
 * ahead costs (SqliteText.rankFrequentWords), and the steps of the bench's new phrases and new prefixes
 * (cold-queries.ts: matching in record order, bm25's cost before its first row, the first window).
 *
 *   node src/text-steps.ts --data-dir DIR [--bound 10000] [--min-rows 4096] [--rank-all]
 */
import { parseArgs } from "node:util";
import { coldPhrases, coldPrefixes } from "./cold-queries.ts";
import { DatasetGenerator } from "./data.ts";
import { cpu, openKept, type Statement } from "./kept-sqlite.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"), // pnpm passes the `--` of `bench:text-steps -- --data-dir DIR` on
  options: {
    "data-dir": { type: "string" },
    bound: { type: "string", default: "10000" },
    "min-rows": { type: "string", default: "4096" },
    "rank-all": { type: "boolean", default: false },
  },
});
if (!args["data-dir"]) throw new Error("usage: text-steps --data-dir DIR [--bound 10000] [--min-rows 4096] [--rank-all]");
const bound = Number(args.bound);
const minRows = Number(args["min-rows"]);

const { db, ranker } = openKept(args["data-dir"]);

const span = db.prepare("SELECT min(seq) AS lo, max(seq) AS hi FROM records").all()[0] as { lo: number; hi: number };
const lo = span.lo * 1024;
const hi = span.hi * 1024 + 1023;
const where = "records_fts WHERE records_fts MATCH ? AND rowid BETWEEN ? AND ?";
const gen = new DatasetGenerator();

console.log(
  `| word (rank) | records matching | FTS rows | all matching records listed (exact total) | first ${bound + 1} records (bounded total) | bm25, best 1,024 | bm25, best 256 (ranked ahead) |`,
);
console.log("|---|---|---|---|---|---|---|");
for (const rank of [20, 60, 200, 600, 2000]) {
  const expression = `"${gen.wordAt(rank)}"`;
  const params = [expression, lo, hi];
  db.prepare(`SELECT count(*) FROM ${where}`)
    .pluck()
    .all(...params); // pages into the cache once
  const rows =
    (db
      .prepare(`SELECT count(*) FROM ${where}`)
      .pluck()
      .all(...params)[0] as number) ?? 0;
  const listed = cpu(
    () =>
      new Set(
        db
          .prepare(`SELECT rowid >> 10 FROM ${where} ORDER BY rowid`)
          .pluck()
          .all(...params) as number[],
      ).size,
  );
  const bounded = cpu(() => {
    const want = Math.ceil((bound + 1) * 1.25) + 16;
    return new Set(
      db
        .prepare(`SELECT rowid >> 10 FROM ${where} ORDER BY rowid LIMIT ?`)
        .pluck()
        .all(...params, want) as number[],
    ).size;
  });
  const top = (k: number) =>
    cpu(() =>
      db
        .prepare(`SELECT rowid AS fr, bm25(records_fts) AS bm FROM ${where} ORDER BY bm, rowid LIMIT ?`)
        .raw()
        .all(...params, k),
    );
  const best1024 = top(1024);
  const best256 = top(256);
  console.log(`| ${expression} (${rank}) | ${listed.value} | ${rows} | ${listed.ms} | ${bounded.ms} | ${best1024.ms} | ${best256.ms} |`);
}

db.exec("CREATE VIRTUAL TABLE temp.records_fts_vocab USING fts5vocab(fts, records_fts, row)");
const terms = cpu(
  () =>
    db.prepare("SELECT term, doc FROM temp.records_fts_vocab WHERE doc >= ? ORDER BY doc DESC").raw().all(minRows) as [string, number][],
);
const rowsAhead = terms.value.reduce((n, [, doc]) => n + doc, 0);
console.log(`\nterms in >= ${minRows} FTS rows: ${terms.value.length} (fts5vocab read: ${terms.ms} ms), ${rowsAhead} FTS rows in all`);
if (args["rank-all"]) {
  const statement = db.prepare(`SELECT rowid AS fr, bm25(records_fts) AS bm FROM ${where} ORDER BY bm, rowid LIMIT 256`).raw();
  const all = cpu(() => {
    for (const [term] of terms.value) if (/^[a-z0-9]+$/.test(term)) statement.all(`"${term}"`, lo, hi);
  });
  console.log(
    `ranking all of them ahead (best 256 each): ${all.ms} ms of CPU, ${Math.round((terms.value.length * 256 * 16) / 1024 / 1024)} MB kept`,
  );
}

// With the annotation page's metadata filters (the bench's `new word + metadata filter` row: `source` = news,
// `quality` 0.25-0.75, pending records without a response: ~10% of the records pass).
const meta = cpu(() => {
  const rows = db
    .prepare(
      "SELECT seq, json_extract(metadata, '$.source') = 'news' AND json_extract(metadata, '$.quality') BETWEEN 0.25 AND 0.75 AND status = 'pending' AND NOT EXISTS (SELECT 1 FROM responses x WHERE x.record_id = records.id) FROM records",
    )
    .raw()
    .all() as [number, number][];
  const passing = new Set<number>();
  for (const [seq, ok] of rows) if (ok) passing.add(seq);
  return passing;
});
console.log(
  `\nwith the metadata filters: ${meta.value.size} records pass (${((meta.value.size / (span.hi - span.lo + 1)) * 100).toFixed(1)}%)\n`,
);
console.log(
  `| word (rank) | records passing | FTS rows read for the first 10,001 passing (CPU ms) | the total now: at most ${2 * (bound + 1)} of the word's records read (CPU ms) | best 256 FTS rows: distinct records / passing | best 1,024 / passing | best 4,096 / passing |`,
);
console.log("|---|---|---|---|---|---|---|");
for (const rank of [20, 60, 200, 600, 2000]) {
  const expression = `"${gen.wordAt(rank)}"`;
  const params = [expression, lo, hi];
  // As the server reads them (sqlite-text.ts, queueTextCount): in chunks of the records still wanted (x 1.25 FTS rows),
  // from the last record read, until `stopAt` pass or `maxRecords` of the word's records were read.
  const walk = (maxRecords: number, stopAt: number) => {
    let n = 0;
    let records = 0;
    let rows = 0;
    let last = -1;
    let next = lo;
    const chunk = db
      .prepare(`SELECT rowid >> 10 FROM records_fts WHERE records_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid LIMIT ?`)
      .pluck();
    for (;;) {
      const want = Math.min(1e9, Math.ceil(Math.max(1, Math.min(Math.max(stopAt - n, records), maxRecords - records)) * 1.25) + 16);
      const seqs = chunk.all(expression, next, hi, want) as number[];
      rows += seqs.length;
      for (const seq of seqs) {
        if (seq === last) continue;
        last = seq;
        if (++records > maxRecords) return { n, rows, records: records - 1, complete: false };
        if (meta.value.has(seq) && ++n >= stopAt) return { n, rows, records, complete: false };
      }
      if (seqs.length < want) return { n, rows, records, complete: true };
      next = (last + 1) * 1024;
    }
  };
  const all = walk(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  const toBound = cpu(() => walk(Number.POSITIVE_INFINITY, bound + 1));
  const capped = cpu(() => walk(2 * (bound + 1), bound + 1));
  const best = (k: number) => {
    const seqs = new Set(
      (
        db
          .prepare(`SELECT rowid AS fr, bm25(records_fts) AS bm FROM ${where} ORDER BY bm, rowid LIMIT ?`)
          .raw()
          .all(...params, k) as [number, number][]
      ).map(([fr]) => Math.floor(fr / 1024)),
    );
    return `${seqs.size} / ${[...seqs].filter((s) => meta.value.has(s)).length}`;
  };
  console.log(
    `| ${expression} (${rank}) | ${all.n} | ${toBound.value.rows} (${toBound.ms}) | ${capped.value.n > bound ? `${bound}+` : capped.value.complete ? capped.value.n : `${capped.value.n}+`}, ${capped.value.rows} rows (${capped.ms}) | ${best(256)} | ${best(1024)} | ${best(4096)} |`,
  );
}

// Phrases and prefixes (the bench's `new phrase` / `new prefix` rows): ranked in windows of 10,000 matching
// records (apps/server/src/search/text-window.ts). FTS5's bm25 counts each phrase's rows over the whole
// table before it scores the first row (its idf), whatever the rowid range; a prefix without a prefix index of its
// length merges the doclists of every term starting with it, in each statement (and again for that count).
const definition = db.prepare("SELECT sql FROM fts.sqlite_master WHERE name = 'records_fts'").pluck().all()[0] as string;
console.log(`\nphrases and prefixes (${/prefix\s*=\s*'[^']*'/.exec(definition)?.[0] ?? "no prefix index"})\n`);
console.log(
  "| query | FTS rows | matching rows in record order, first 12,516 (no bm25) | bm25 up to its first row | first window (10,001 records) with bm25 | its phrases' rows counted: fts5vocab (plain words) / count(*) MATCH | first window with tessera_bm25 (counts given) | first 20,002 records without scores (a bounded total) |",
);
console.log("|---|---|---|---|---|---|---|---|");
db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.records_fts_vocab USING fts5vocab(fts, records_fts, row)");
const byTerm = db.prepare("SELECT doc FROM temp.records_fts_vocab WHERE term = ?").pluck();
const byMatch = db.prepare("SELECT count(*) FROM records_fts WHERE records_fts MATCH ?").pluck();
/** The first window (10,001 records) of a statement in rowid order, then (`on`) the records up to 20,002. */
const readWindow = (statement: Statement, params: unknown[], on: number) => {
  let records = 0;
  let last = -1;
  for (const row of statement.iterate(...params) as Iterable<[number, number]>) {
    const seq = Math.floor(row[0] / 1024);
    if (seq !== last && ++records > on) break;
    last = seq;
  }
  return records;
};
const rangeWhere = "records_fts WHERE records_fts MATCH ? AND rowid BETWEEN CAST(? AS INTEGER) AND CAST(? AS INTEGER)";
const phrase = coldPhrases((rank) => gen.wordAt(rank), 5000);
const prefix = coldPrefixes((rank) => gen.wordAt(rank), 5000);
for (const q of [...Array.from({ length: 10 }, () => phrase()), ...Array.from({ length: 10 }, () => prefix())]) {
  const expression = q
    .split(" ")
    .map((w) => (w.endsWith("*") ? `"${w.slice(0, -1)}"*` : `"${w}"`))
    .join(" ");
  const params = [expression, lo, hi];
  const count = db
    .prepare(`SELECT count(*) FROM ${rangeWhere}`)
    .pluck()
    .all(...params)[0] as number; // pages into the cache once
  const matching = cpu(
    () =>
      db
        .prepare(`SELECT rowid FROM ${rangeWhere} ORDER BY rowid LIMIT 12516`)
        .pluck()
        .all(...params).length,
  );
  const scored = db.prepare(`SELECT rowid, bm25(records_fts) FROM ${rangeWhere} ORDER BY rowid`).raw();
  const first = cpu(() => {
    for (const row of scored.iterate(...params)) return row;
    return null;
  });
  const window = cpu(() => readWindow(scored, params, 10_001));
  if (!ranker) {
    console.log(
      `| ${q} | ${count} | ${matching.ms} | ${first.ms} | ${window.ms} | no extension (apps/server/native/build/tessera_rank.so) | | |`,
    );
    continue;
  }
  const phrases = expression.match(/"[^"]*"\*?/g) ?? [];
  const vocab = cpu(() => phrases.map((p) => (p.endsWith("*") ? 0 : ((byTerm.get(p.slice(1, -1)) as number | undefined) ?? 0))));
  const matched = cpu(() => phrases.map((p) => byMatch.get(p) as number));
  const counts = phrases.length > 1 ? matched.value : [];
  const ranked = db
    .prepare(`SELECT rowid, tessera_bm25(records_fts${", ?".repeat(counts.length)}) FROM ${rangeWhere} ORDER BY rowid`)
    .raw();
  const tessera = cpu(() => readWindow(ranked, [...counts, ...params], 10_001));
  const plain = db.prepare(`SELECT rowid FROM ${rangeWhere} ORDER BY rowid`).raw();
  const onward = cpu(() => readWindow(plain, params, 20_002));
  console.log(
    `| ${q} | ${count} | ${matching.ms} | ${first.ms} | ${window.ms} | ${phrases.some((p) => p.endsWith("*")) ? "-" : vocab.ms} / ${matched.ms} | ${tessera.ms} | ${onward.ms} |`,
  );
}
