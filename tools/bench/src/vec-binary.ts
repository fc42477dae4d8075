/**
 * sqlite-vec's own binary quantization against the similarity codes of the embedded store
 * (issue 25, point 3; apps/server/src/search/sqlite-knn.ts, knn-ivf.ts): on a data directory kept by
 * `bench --keep-data` (read-only: it is only read), the vectors' codes are put in a database of this
 * script's own (`--work-dir`), once:
 *   - `vc`: a vec0 table `bit[D]` of sqlite-vec's `vec_quantize_binary` of each normalised vector minus the
 *     setting's mean (the centring sqlite-knn.ts does with the same functions), with the record's status
 *     as a vec0 metadata column (the pending queue's record filter inside the KNN);
 *   - `vu`: the same without the centring (sqlite-vec's plain `vec_quantize_binary(vector)`);
 *   - `plain`: a rowid table of the centred codes, scanned with `vec_distance_hamming`.
 * Then, for `--samples` records of the dataset, most similar (the query's code) and least similar (the
 * code of the negated query: the complement) by each path for K candidates, re-ranked exactly by
 * `vec_distance_cosine` of the float vectors read from the kept directory by rowid, the top 50:
 * CPU ms of this process per call (the KNN and the re-rank apart) and recall@50 against the exact
 * top 50 (a scan of every vector, not timed).
 *
 *   node src/vec-binary.ts --data-dir DIR --work-dir DIR [--samples 20] [--k 500,1000,2000]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Database, serverRequire, SQLite } from "./sqlite-script.ts";

const { values: args } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  options: {
    "data-dir": { type: "string" },
    "work-dir": { type: "string" },
    samples: { type: "string", default: "20" },
    k: { type: "string", default: "500,1000,2000" },
    paths: { type: "string", default: "vc,vc-pending,vu,plain" },
    orders: { type: "string", default: "most,least" },
    /** Measure the first N sample queries only (the exact tops kept for --samples are reused). */
    timed: { type: "string" },
  },
});
if (!args["data-dir"] || !args["work-dir"])
  throw new Error("usage: vec-binary --data-dir DIR --work-dir DIR [--samples 20] [--k 500,1000,2000]");
const samples = Number(args.samples);
const ks = args.k.split(",").map(Number);
const paths = new Set(args.paths.split(","));
const TOP = 50;

const vec = serverRequire("sqlite-vec") as { getLoadablePath(): string; load(db: Database): void };

// The kept directory is shared: opened read-only (as text-steps.ts does).
const src = new SQLite(join(args["data-dir"], "tessera.db"), { readonly: true });
vec.load(src);
mkdirSync(args["work-dir"], { recursive: true });
const work = new SQLite(join(args["work-dir"], "codes.db"));
vec.load(work);
work.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144");

const cpu = <T>(f: () => T): { ms: number; value: T } => {
  const before = process.cpuUsage();
  const value = f();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, value };
};

const setting = src
  .prepare("SELECT vector_settings_id AS id, count(*) AS n FROM record_vectors GROUP BY 1 ORDER BY 2 DESC LIMIT 1")
  .get() as {
  id: string;
  n: number;
};
const dims =
  ((src.prepare("SELECT vector FROM record_vectors WHERE vector_settings_id = ? LIMIT 1").pluck().get(setting.id) as Buffer).length / 4) |
  0;
console.error(`setting ${setting.id}: ${setting.n} vectors of ${dims} dimensions`);

/** The ids of the records that are not pending (the team's submitted ones: few), from the status index. */
function notPending(): Set<string> {
  return new Set(src.prepare("SELECT id FROM records WHERE status <> 'pending'").pluck().all() as string[]);
}

const built = work.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'plain'").pluck().get() as number;
if (!built) {
  // The centre as sqlite-knn.ts takes it: the mean of MEAN_SAMPLE normalised vectors.
  const mean = new Float64Array(dims);
  const sample = src
    .prepare("SELECT vec_normalize(vector) FROM record_vectors WHERE vector_settings_id = ? LIMIT 5000")
    .pluck()
    .all(setting.id) as Buffer[];
  for (const blob of sample) {
    const v = new Float32Array(blob.buffer, blob.byteOffset, dims);
    for (let d = 0; d < dims; d++) mean[d]! += v[d]! / sample.length;
  }
  const meanBlob = Buffer.from(Float32Array.from(mean).buffer);
  work.exec(`CREATE TABLE mean (v BLOB); CREATE TABLE plain (rowid INTEGER PRIMARY KEY, code BLOB NOT NULL);
    CREATE VIRTUAL TABLE vc USING vec0(code bit[${dims}], pending integer);
    CREATE VIRTUAL TABLE vu USING vec0(code bit[${dims}]);`);
  work.prepare("INSERT INTO mean VALUES (?)").run(meanBlob);
  // Every row in rowid order (the table's order: read once), its record's status from the few not pending.
  const rows = src.prepare(
    "SELECT rowid AS vrow, record_id AS record, vec_quantize_binary(vec_sub(vec_normalize(vector), ?)) AS c, vec_quantize_binary(vector) AS u FROM record_vectors WHERE vector_settings_id = ?",
  );
  const insPlain = work.prepare("INSERT INTO plain (rowid, code) VALUES (?, ?)");
  const insC = work.prepare("INSERT INTO vc (rowid, code, pending) VALUES (?, vec_bit(?), ?)");
  const insU = work.prepare("INSERT INTO vu (rowid, code) VALUES (?, vec_bit(?))");
  let batch: { vrow: number; c: Buffer; u: Buffer; pending: number }[] = [];
  const done = notPending();
  const flush = work.transaction(() => {
    for (const r of batch) {
      insPlain.run(r.vrow, r.c);
      insC.run(BigInt(r.vrow), r.c, BigInt(r.pending));
      insU.run(BigInt(r.vrow), r.u);
    }
  });
  const t = cpu(() => {
    let n = 0;
    for (const r of rows.iterate(meanBlob, setting.id) as Iterable<{ vrow: number; record: string; c: Buffer; u: Buffer }>) {
      batch.push({ ...r, pending: done.has(r.record) ? 0 : 1 });
      if (batch.length === 10_000) {
        flush();
        batch = [];
        if (++n % 10 === 0) console.error(`  ${n * 10_000} codes`);
      }
    }
    flush();
  });
  console.error(`codes built: ${(t.ms / 1000).toFixed(1)} s of CPU`);
}

// The sample records: spread over the setting's rows.
const maxRow = src.prepare("SELECT max(rowid) FROM record_vectors").pluck().get() as number;
const sampleRows: number[] = [];
for (let i = 0; i < samples; i++) sampleRows.push(Math.floor(((i + 0.5) / samples) * maxRow));
const queries = sampleRows.map((near) => {
  const row = src
    .prepare("SELECT rowid AS vrow, vector FROM record_vectors WHERE vector_settings_id = ? AND rowid >= ? ORDER BY rowid LIMIT 1")
    .get(setting.id, near) as {
    vrow: number;
    vector: Buffer;
  };
  const values = new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + dims * 4));
  return { vrow: row.vrow, vector: row.vector, negated: Buffer.from(values.map((x) => -x).buffer) };
});

// Exact top 50 (every vector scanned; not timed), most and least similar, of all records and of the pending ones:
// one scan per query and order for the top 50 + the records not pending, kept in the work directory for the next run.
const pendingCount = work.prepare("SELECT count(*) FROM vc WHERE pending = 1").pluck().get() as number;
const notPendingRows = new Set((work.prepare("SELECT rowid FROM vc WHERE pending = 0").pluck().all() as (number | bigint)[]).map(Number));
const exactFile = join(
  args["work-dir"],
  `exact-${queries
    .map((q) => q.vrow)
    .join("-")
    .slice(0, 100)}.json`,
);
type Tops = { most: number[][]; least: number[][] };
let tops: Tops;
if (existsSync(exactFile)) tops = JSON.parse(readFileSync(exactFile, "utf8")) as Tops;
else {
  console.error(`pending records: ${pendingCount} of ${setting.n}; the exact top ${TOP} of ${queries.length} queries...`);
  const scan = (order: string) =>
    src.prepare(
      `SELECT rowid FROM record_vectors WHERE vector_settings_id = ? AND rowid <> ? ORDER BY vec_distance_cosine(vector, ?) ${order}, rowid LIMIT ${TOP + notPendingRows.size}`,
    );
  tops = {
    most: queries.map((q) => scan("ASC").pluck().all(setting.id, q.vrow, q.vector) as number[]),
    least: queries.map((q) => scan("DESC").pluck().all(setting.id, q.vrow, q.vector) as number[]),
  };
  writeFileSync(exactFile, JSON.stringify(tops));
}
const topOf = (pendingOnly: boolean) => (rows: number[]) =>
  new Set((pendingOnly ? rows.filter((r) => !notPendingRows.has(r)) : rows).slice(0, TOP));
const exact = { most: tops.most.map(topOf(false)), least: tops.least.map(topOf(false)) };
const exactPending = { most: tops.most.map(topOf(true)), least: tops.least.map(topOf(true)) };

// The re-rank: the candidates' float vectors by rowid from the kept directory, exact cosine distance, the best 50.
const rerank = (order: "ASC" | "DESC", pendingJoin: boolean) =>
  src
    .prepare(
      `SELECT v.rowid FROM record_vectors v ${pendingJoin ? "JOIN records r ON r.id = v.record_id AND r.status = 'pending'" : ""}
       WHERE v.rowid IN (SELECT value FROM json_each(?)) AND v.rowid <> ? ORDER BY vec_distance_cosine(v.vector, ?) ${order}, v.rowid LIMIT ${TOP}`,
    )
    .pluck();
const rerankOf = { ASC: rerank("ASC", false), DESC: rerank("DESC", false) };
const rerankPendingOf = { ASC: rerank("ASC", true), DESC: rerank("DESC", true) };

const knn = {
  vc: work.prepare("SELECT rowid FROM vc WHERE code MATCH vec_quantize_binary(?) AND k = ?").pluck(),
  "vc-pending": work.prepare("SELECT rowid FROM vc WHERE code MATCH vec_quantize_binary(?) AND k = ? AND pending = 1").pluck(),
  vu: work.prepare("SELECT rowid FROM vu WHERE code MATCH vec_quantize_binary(?) AND k = ?").pluck(),
  plain: work.prepare("SELECT rowid FROM plain ORDER BY vec_distance_hamming(vec_bit(code), vec_quantize_binary(?)) LIMIT ?").pluck(),
  // The pending queue's record filter after the KNN: the candidates' records read by their vectors' rowids.
  "vc-postfilter": work.prepare("SELECT rowid FROM vc WHERE code MATCH vec_quantize_binary(?) AND k = ?").pluck(),
} as const;

console.log(`| path | order | K | KNN CPU ms / call | re-rank CPU ms / call | total | recall@${TOP} mean (min) |`);
console.log("|---|---|---|---|---|---|---|");
for (const path of Object.keys(knn) as (keyof typeof knn)[]) {
  if (!paths.has(path) && !(path === "vc-postfilter" && paths.has("vc-pending"))) continue;
  const pendingPath = path === "vc-pending" || path === "vc-postfilter";
  const truth = pendingPath ? exactPending : exact;
  for (const order of args.orders.split(",") as ("most" | "least")[]) {
    for (const k of ks) {
      let knnMs = 0,
        rerankMs = 0,
        recallSum = 0,
        recallMin = 1;
      const timed = queries.slice(0, Number(args.timed ?? queries.length));
      timed.forEach((q, i) => {
        const probe = order === "most" ? q.vector : q.negated;
        knn[path].all(probe, BigInt(k)); // pages into the cache once, as a server's would be
        const found = cpu(() => knn[path].all(probe, BigInt(k)) as number[]);
        const stmt = (path === "vc-postfilter" ? rerankPendingOf : rerankOf)[order === "most" ? "ASC" : "DESC"];
        const top = cpu(() => stmt.all(JSON.stringify(found.value), q.vrow, q.vector) as number[]);
        knnMs += found.ms;
        rerankMs += top.ms;
        const hit = top.value.filter((r) => truth[order][i]!.has(r)).length / TOP;
        recallSum += hit;
        recallMin = Math.min(recallMin, hit);
      });
      const n = timed.length;
      console.log(
        `| ${path} | ${order} | ${k} | ${(knnMs / n).toFixed(1)} | ${(rerankMs / n).toFixed(1)} | ${((knnMs + rerankMs) / n).toFixed(1)} | ${(recallSum / n).toFixed(3)} (${recallMin.toFixed(2)}) |`,
      );
    }
  }
}
