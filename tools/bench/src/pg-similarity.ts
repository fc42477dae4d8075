import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";

/**
 * `bench:pg-similarity`: recall@k and PostgreSQL's CPU of the similarity page statement on a kept
 * PostgreSQL dataset (e.g. the 1M `bench1m`), per setting (index, probes, iterative scan, filters),
 * against the exact top k (every vector's exact distance, ORDER BY without the index's expression, so no
 * index serves it; cached in a file: at 1M each takes ~1-2 s of CPU). The page statement has the shape of
 * apps/server/src/search/postgres-search.ts (the reference record's vector, the annotation page's filters,
 * k + 10 candidates through the index re-sorted by their exact distance). CPU per statement from the
 * backend's /proc/<pid>/schedstat (ns), so run it on the database's machine.
 */

const { values: args } = parseArgs({
  options: {
    url: { type: "string" },
    samples: { type: "string", default: "20" },
    k: { type: "string", default: "50" },
    repeat: { type: "string", default: "2" },
    variants: { type: "string", default: "least:ivf:40,most:ivf:10" },
    filters: { type: "string", default: "pending" },
    "exact-cache": { type: "string" },
    explain: { type: "boolean", default: false },
  },
});
if (!args.url) {
  console.error(
    "usage: bench:pg-similarity --url postgres://.../db [--samples 20] [--k 50] [--repeat 2] [--filters none,pending,metadata]\n" +
      "  [--variants order:index:param[:iterative][:extra],...] (least:ivf:40 = 40 probes; most:hnsw:1000 = ef_search 1000; most:bounded:20000 = the scan without an index; iterative off|relaxed|strict)\n" +
      "  [--exact-cache FILE] [--explain]",
  );
  process.exit(2);
}
const samples = Number(args.samples);
const k = Number(args.k);
const repeat = Number(args.repeat);
const filterNames = args.filters!.split(",") as Filter[];

type Order = "most" | "least";
type Filter = "none" | "pending" | "metadata";
interface Variant {
  order: Order;
  /** ivfip: an IVFFlat index with halfvec_ip_ops (`<#>`), when the database has one; bounded: the server's scan while no index is valid (boundedVectors, param: its vectors). */
  index: "ivf" | "ivfip" | "hnsw" | "bounded";
  param: number;
  iterative: "off" | "relaxed" | "strict";
  extra: number;
  label: string;
}

const variants: Variant[] = args.variants!.split(",").map((spec) => {
  const [order, index, param, iterative, extra] = spec.split(":");
  if ((order !== "most" && order !== "least") || (index !== "ivf" && index !== "ivfip" && index !== "hnsw" && index !== "bounded"))
    throw new Error(`bad variant ${spec}`);
  const it = (iterative ?? (index === "hnsw" ? "strict" : "relaxed")) as Variant["iterative"];
  return { order, index, param: Number(param), iterative: it, extra: extra === undefined ? 10 : Number(extra), label: spec };
});

const client = new pg.Client({ connectionString: args.url });
await client.connect();
const pid = Number((await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid);
const schedNs = (p: number | string) => {
  try {
    return Number(readFileSync(`/proc/${p}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    return 0;
  }
};
const cpuNs = () => schedNs(pid);
// Every process of the cluster (the backend, its I/O workers, the checkpointer...): what the bench's other clients would pay too.
const dataDir = (await client.query<{ d: string }>("SELECT current_setting('data_directory') AS d")).rows[0]!.d;
const postmaster = readFileSync(`${dataDir}/postmaster.pid`, "utf8").split("\n")[0]!;
const clusterNs = () => {
  let total = schedNs(postmaster);
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ")[1] === postmaster) total += schedNs(p);
    } catch {
      // ended meanwhile
    }
  }
  return total;
};

const settings = (await client.query<{ id: string; dimensions: number }>("SELECT id, dimensions FROM vectors_settings LIMIT 1")).rows[0]!;
const dims = Number(settings.dimensions);
const dataset = (
  await client.query<{ id: string; n: string }>("SELECT dataset_id AS id, count(*) AS n FROM records GROUP BY 1 ORDER BY 2 DESC LIMIT 1")
).rows[0]!;
const bounds = (
  await client.query<{ lo: string; hi: string }>("SELECT min(seq) AS lo, max(seq) AS hi FROM records WHERE dataset_id = $1", [dataset.id])
).rows[0]!;
const lo = Number(bounds.lo),
  hi = Number(bounds.hi);
// A user without responses: the pending filter keeps every pending record (as the bench's fresh annotators).
const userId = "00000000-0000-0000-0000-000000000000";
const halfvec = (col: string) => `(l2_normalize(${col}::vector(${dims}))::halfvec(${dims}))`;

interface Reference {
  id: string;
  vector: string;
}
const refs: Reference[] = [];
for (let j = 0; j < samples; j++) {
  const seq = lo + Math.floor(((j + 0.5) * (hi - lo + 1)) / samples);
  const row = (
    await client.query<{ id: string; v: string }>(
      "SELECT r.id, v.vector::text AS v FROM records r JOIN record_vectors v ON v.record_id = r.id AND v.vector_settings_id = $1 WHERE r.seq >= $2 ORDER BY r.seq LIMIT 1",
      [settings.id, seq],
    )
  ).rows[0]!;
  refs.push({ id: row.id, vector: JSON.stringify(JSON.parse(row.v.replace(/^\{/, "[").replace(/\}$/, "]")) as number[]) });
}

/** The page statement (postgres-search.ts) or, without `nearest`, the exact one (over the `bounded` vectors of the smallest record ids); with its parameters. */
function statement(
  ref: Reference,
  order: Order,
  filter: Filter,
  nearest: { op: string; extra: number } | null,
  bounded?: number,
): [string, unknown[]] {
  const params: unknown[] = [];
  const p = (v: unknown) => (params.push(v), `$${params.length}`);
  const vec = order === "least" ? JSON.stringify((JSON.parse(ref.vector) as number[]).map((x) => -x)) : ref.vector;
  const reference = p(vec);
  const score = `(v.vector::vector(${dims}) <=> ${reference}::vector(${dims}))`;
  const where = [`r.dataset_id = ${p(dataset.id)}`, `r.id <> ${p(ref.id)}`];
  if (filter === "pending")
    where.push(
      `(NOT EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id AND s.user_id = ${p(userId)}))`,
      `r.status IN (${p("pending")})`,
    );
  if (filter === "metadata")
    where.push(
      `(r.metadata @> ${p(JSON.stringify({ source: "forum" }))}::jsonb OR r.metadata @> ${p(JSON.stringify({ source: ["forum"] }))}::jsonb)`,
    );
  const vectors = bounded
    ? `(SELECT vector_settings_id, record_id, vector FROM record_vectors WHERE vector_settings_id = ${p(settings.id)} ORDER BY record_id LIMIT ${bounded})`
    : "record_vectors";
  const base = `SELECT r.id AS id, r.seq AS seq, ${score} AS score FROM records r JOIN ${vectors} v ON v.record_id = r.id AND v.vector_settings_id = ${p(settings.id)} WHERE ${where.join(" AND ")}`;
  if (!nearest) return [`${base} ORDER BY score, r.seq LIMIT ${p(k)}`, params];
  const near = `${halfvec("v.vector")} ${nearest.op} l2_normalize(${reference}::vector(${dims}))::halfvec(${dims})`;
  return [
    `SELECT id, score FROM (${base} ORDER BY ${near} LIMIT ${p(k + nearest.extra)}) AS near ORDER BY score, seq LIMIT ${p(k)}`,
    params,
  ];
}

/** The exact distance (the page's score) of one record from a reference, in an order. */
async function exactDistance(ref: Reference, order: Order, recordId: string): Promise<number> {
  const vec = order === "least" ? JSON.stringify((JSON.parse(ref.vector) as number[]).map((x) => -x)) : ref.vector;
  const row = await client.query<{ d: number }>(
    `SELECT v.vector::vector(${dims}) <=> $1::vector(${dims}) AS d FROM record_vectors v WHERE v.record_id = $2 AND v.vector_settings_id = $3`,
    [vec, recordId, settings.id],
  );
  return Number(row.rows[0]!.d);
}

// The exact top k per (reference, order, filter), cached.
type Exact = Record<string, string[]>;
const cacheFile = args["exact-cache"];
const exact: Exact = cacheFile && existsSync(cacheFile) ? (JSON.parse(readFileSync(cacheFile, "utf8")) as Exact) : {};
const orders = [...new Set(variants.map((v) => v.order))];
let computed = 0;
for (const ref of refs)
  for (const order of orders)
    for (const filter of filterNames) {
      // The pending filter keeps what no filter keeps for a user without responses on an all-pending dataset: checked once below.
      const key = `${ref.id}/${order}/${filter}/${k}`;
      if (exact[key]) continue;
      await client.query("SET enable_indexscan = off; SET enable_bitmapscan = off; SET max_parallel_workers_per_gather = 0");
      const [q, params] = statement(ref, order, filter, null);
      exact[key] = (await client.query<{ id: string }>(q, params)).rows.map((r) => r.id);
      await client.query("RESET enable_indexscan; RESET enable_bitmapscan; RESET max_parallel_workers_per_gather");
      computed++;
      if (cacheFile) writeFileSync(cacheFile, JSON.stringify(exact));
    }
if (computed) console.log(`exact top ${k}: ${computed} computed`);

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`${new Date().toISOString()} load ${load()}; ${samples} references, ${dataset.n} records`);
console.log(
  "variant | filter | recall@k mean | min | backend CPU ms per page statement | cluster CPU ms (all processes) | 50th distance minus the exact 50th | rows",
);
for (const v of variants)
  for (const filter of filterNames) {
    const set =
      v.index === "bounded"
        ? "SELECT 1"
        : v.index !== "hnsw"
          ? `SET ivfflat.probes = ${v.param}; SET ivfflat.iterative_scan = ${v.iterative === "off" ? "off" : "relaxed_order"}`
          : `SET hnsw.ef_search = ${v.param}; SET hnsw.iterative_scan = ${v.iterative === "off" ? "off" : v.iterative === "relaxed" ? "relaxed_order" : "strict_order"}`;
    await client.query(set);
    // Drop the other index from the planner's choice for this statement: the operator decides (<-> IVFFlat, <=> HNSW).
    const op = v.index === "ivf" ? "<->" : v.index === "ivfip" ? "<#>" : "<=>";
    const recalls: number[] = [];
    const gaps: number[] = [];
    let rows = 0;
    let ns = 0;
    const c0 = clusterNs();
    for (let r = 0; r < repeat; r++)
      for (const ref of refs) {
        const [q, params] =
          v.index === "bounded" ? statement(ref, v.order, filter, null, v.param) : statement(ref, v.order, filter, { op, extra: v.extra });
        const t0 = cpuNs();
        const page = (await client.query<{ id: string; score: number }>(q, params)).rows;
        ns += cpuNs() - t0;
        if (r > 0) continue;
        rows += page.length;
        const want = exact[`${ref.id}/${v.order}/${filter}/${k}`]!;
        const have = new Set(page.map((x) => x.id));
        recalls.push(want.filter((id) => have.has(id)).length / want.length);
        // How much worse the misses are: the page's last distance minus the exact last's (0 when the page is exact).
        const last = page[page.length - 1];
        if (last) gaps.push(Number(last.score) - (await exactDistance(ref, v.order, want[want.length - 1]!)));
      }
    const cluster = (clusterNs() - c0) / 1e6 / (repeat * refs.length);
    const mean = recalls.reduce((a, b) => a + b, 0) / recalls.length;
    console.log(
      `${v.label} | ${filter} | ${mean.toFixed(3)} | ${Math.min(...recalls).toFixed(2)} | ${(ns / 1e6 / (repeat * refs.length)).toFixed(2)} | ${cluster.toFixed(2)} | ${(gaps.reduce((a, b) => a + b, 0) / Math.max(1, gaps.length)).toFixed(4)} | ${rows / refs.length}`,
    );
    if (args.explain) {
      const [q, params] =
        v.index === "bounded"
          ? statement(refs[0]!, v.order, filter, null, v.param)
          : statement(refs[0]!, v.order, filter, { op, extra: v.extra });
      const plan = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS) ${q}`, params);
      console.log(plan.rows.map((x) => `    ${x["QUERY PLAN"]}`).join("\n"));
    }
    await client.query("RESET ivfflat.probes; RESET ivfflat.iterative_scan; RESET hnsw.ef_search; RESET hnsw.iterative_scan");
  }
console.log(`load ${load()}`);
await client.end();
