/**
 * Where the Submitted view's text search spends its time (issue 31), step by step, on a data directory kept by
 * `bench --keep-data`: the statements of apps/server/src/search/sqlite-text-answered.ts run alone with better-sqlite3
 * (read-only, the ranking extension loaded), CPU ms of this process per step, for an annotator with `--answered`
 * records spread every `--spread`-th record (1: the dataset's first), for the bench's new-word and new-phrase bands.
 *
 *   node src/answered-steps.ts --data-dir DIR [--answered 10000] [--spread 50] [--shift 1]
 */
import { parseArgs } from "node:util";
import { PHRASE_BANDS } from "./cold-queries.ts";
import { DatasetGenerator } from "./data.ts";
import { cpu, openKept } from "./kept-sqlite.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  options: {
    "data-dir": { type: "string" },
    answered: { type: "string", default: "10000" },
    spread: { type: "string", default: "50" },
    shift: { type: "string", default: "1" },
  },
});
if (!args["data-dir"]) throw new Error("usage: answered-steps --data-dir DIR [--answered 10000] [--spread 50]");
const n = Number(args.answered);
const spread = Number(args.spread);

const { db, ranker } = openKept(args["data-dir"]);
if (!ranker) throw new Error("the ranking extension is not built: run apps/server/native/build.mjs");
db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.records_fts_vocab USING fts5vocab(fts, records_fts, row)");

const span = db.prepare("SELECT min(seq) AS lo, max(seq) AS hi FROM records").get() as { lo: number; hi: number };
const records = span.hi - span.lo + 1;
const seqs = Array.from({ length: n }, (_, i) => span.lo + (spread === 1 ? i : i * spread));
const first = seqs[0]!;
const last = seqs[seqs.length - 1]!;
const bits = new Uint8Array(((last - first) >> 3) + 1);
for (const s of seqs) bits[(s - first) >> 3]! |= 1 << ((s - first) & 7);
const blob = Buffer.from(bits.buffer);

function ranges(gap: number, max = 1024): [number, number][] {
  for (let g = Math.max(1, gap); ; g *= 2) {
    const out: [number, number][] = [];
    let a = seqs[0]!;
    let b = a;
    for (let i = 1; i < seqs.length; i++) {
      if (seqs[i]! - b > g) {
        out.push([a, b]);
        a = seqs[i]!;
      }
      b = seqs[i]!;
    }
    out.push([a, b]);
    if (out.length <= max) return out;
  }
}
const termRows = (w: string) => (db.prepare("SELECT doc FROM temp.records_fts_vocab WHERE term = ?").pluck().get(w) as number) ?? 0;
const gen = new DatasetGenerator();
const g = "WITH g(lo, hi) AS MATERIALIZED (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?)) ";
const from = "FROM g CROSS JOIN records_fts WHERE records_fts MATCH ? AND records_fts.rowid BETWEEN g.lo AND g.hi";
const member = "tessera_seq_in(?, ?, records_fts.rowid)";

console.log(`${n} answered, every ${spread}th; records ${records}`);
console.log(
  "| query | rows (table) | ranges | walk (count) | walk+bitmap | scored rows | scored ms | first 10,001 records | C count | C top 10 | again |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
const queries: string[][] = [];
const shift = Number(args.shift);
for (const rank of [20, 60, 200, 600, 2000]) queries.push([gen.wordAt(rank + shift)]);
for (const band of PHRASE_BANDS) queries.push(band.map((r) => gen.wordAt(r + shift)).reverse());
for (const words of queries) {
  const expression = words.map((w) => `"${w}"`).join(" ");
  const counts = words.map(termRows);
  const density = Math.min(...counts) / records;
  const spans = ranges(Math.max(1, Math.floor(340 / density))).map(([a, b]) => [a * 1024, b * 1024 + 1023]);
  const j = JSON.stringify(spans);
  const walk = cpu(() => db.prepare(`${g}SELECT count(*) ${from}`).pluck().get(j, expression));
  const walkBits = cpu(() => db.prepare(`${g}SELECT count(*) ${from} AND ${member}`).pluck().get(j, expression, blob, first));
  const scoreArgs = words.length === 1 ? counts : counts;
  const marks = scoreArgs.map(() => ", ?").join("");
  const scored = cpu(
    () =>
      db
        .prepare(`${g}SELECT records_fts.rowid, tessera_bm25(records_fts${marks}) ${from} AND ${member}`)
        .raw()
        .all(j, ...scoreArgs, expression, blob, first).length,
  );
  // tessera_answered: the same rows counted and the best 10 records kept in C (generation 1: the rows' lengths kept).
  const inC = (k: number) =>
    cpu(() => {
      db.prepare(`${g}SELECT 1 ${from} AND CASE WHEN ${member} THEN tessera_answered(records_fts, ?, ?, ?, ?, ?, ?${marks}) ELSE 0 END`)
        .raw()
        .all(j, expression, blob, first, blob, first, k, span.lo, 0, 1, ...scoreArgs);
      const d = new Float64Array(Uint8Array.from(db.prepare("SELECT tessera_answered_result()").pluck().get() as Uint8Array).buffer);
      return `${d[0]} / ${d[1]}`;
    });
  const cCount = inC(0);
  const cTop = inC(10);
  const cTop2 = inC(10);
  const firstRecords =
    words.length > 1
      ? cpu(() => {
          const it = db
            .prepare("SELECT rowid >> 10 FROM records_fts WHERE records_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid")
            .pluck() as unknown as { iterate(...p: unknown[]): Iterable<number> };
          let k = 0;
          let prev = -1;
          for (const s of it.iterate(expression, span.lo * 1024, span.hi * 1024 + 1023)) {
            if (s !== prev) k++;
            prev = s;
            if (k > 10_000) break;
          }
          return k;
        })
      : null;
  console.log(
    `| ${words.join(" ")} | ${counts.join("/")} | ${spans.length} | ${walk.ms} (${String(walk.value)}) | ${walkBits.ms} (${String(walkBits.value)}) | ${scored.value} | ${scored.ms} | ${firstRecords ? `${firstRecords.ms} (${firstRecords.value})` : ""} | ${cCount.ms} (${cCount.value}) | ${cTop.ms} (${cTop.value}) | ${cTop2.ms} |`,
  );
}
