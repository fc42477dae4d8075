import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { advisoryKey } from "../reservations/transaction.js";
import { BackgroundLoop } from "./background-loop.js";
import { queryRows } from "./postgres-sql.js";
import { backendPid, cancelBackend } from "./postgres-backend.js";

const TICK_MS = 2_000;
/** How long the writes of record_vectors must pause before a missing index is built. */
const SETTLE_MS = 5_000;
/**
 * ... unless they never pause: then it is built anyway after this long, when the writes are a trickle
 * (fewer than TRICKLE_PER_SECOND vectors a second over the last RATE_WINDOW_MS: an application logging
 * records steadily, whose vectors the index then takes one by one at little cost). A bulk import keeps
 * writing faster than that and is not interrupted: built in the middle of a 1M-record import (after 10
 * minutes, ~180K vectors in), the index made every later insert go through the graph, and the import fell
 * from ~300 to ~55 records/s on a loaded 2-core machine (session 14); built after it, over loaded vectors,
 * it costs a few minutes once.
 */
const MAX_WAIT_MS = 10 * 60_000;
const TRICKLE_PER_SECOND = 20;
const RATE_WINDOW_MS = 60_000;
/**
 * A settings with fewer vectors gets no index yet: searches scan its vectors exactly (~10 ms for
 * 10,000 of 384 dimensions). Without this floor a new dataset's index was built over no vectors as soon
 * as its settings existed for SETTLE_MS, and the import that followed inserted every vector through the
 * graph (1M bench records: 130 instead of ~450 records/s by SQL on a loaded machine; 240 instead of 887
 * at 20K).
 */
const MIN_VECTORS = 10_000;
/** How long a search keeps what it found of a settings' indexes (usable, farSide). */
const USABLE_TTL_MS = 2_000;
/** How long a replaced index stays next to the valid one that replaced it (the searches' TTL, several times). */
const REPLACED_MS = 5 * USABLE_TTL_MS;

/**
 * The HNSW indexes earlier versions built per vector settings (cosine): `halfvec` (`record_vectors_hnswh_`, the
 * unit vectors at half precision, pgvector 0.7+) or `vector` (`record_vectors_hnsw_`, the vector itself, earlier
 * versions and pgvector before 0.7). None is built any more: the settings' IVFFlat index (farSideIndexName) serves
 * both orders at a better recall for less CPU (1M bench vectors, 20 references: most similar 0.997-1.000 at
 * 6-13 ms of PostgreSQL CPU; HNSW at ef_search 1,000 0.911 at 14.6-53 ms) and costs ~0.12 ms per vector written
 * against the graph's 2-2.8 ms (session 17). One left by an earlier version serves searches until the IVFFlat
 * index is valid, which the job then drops (tick; migration 0034 drops those whose IVFFlat index is valid).
 */
export type VectorIndexKind = "halfvec" | "vector";

const namePrefix = (kind: VectorIndexKind) => `record_vectors_${kind === "halfvec" ? "hnswh" : "hnsw"}_`;

/** The name of a vector settings' partial HNSW index (cosine) on `record_vectors`, as earlier versions built it. */
export function vectorIndexName(settingsId: string, dimensions: number, kind: VectorIndexKind = "halfvec"): string {
  return `${namePrefix(kind)}${settingsId.replace(/-/g, "").toLowerCase()}_${dimensions}`;
}

/**
 * The far-side index's kinds: pgvector's IVFFlat over the same unit vectors at half precision, with
 * `halfvec_ip_ops` (`ip`, since session 17; operator `<#>`, negative inner product) or `halfvec_l2_ops`
 * (`l2`, earlier versions; `<->`). On unit vectors both order as cosine, and the operator tells the
 * planner this index from the HNSW one, which serves `<=>`. They differ in the lists a search probes:
 * `ip` takes the lists whose centroids have the largest inner product with the query, `l2` those
 * nearest it, which passes over diffuse lists' centroids (shorter) that point the same way. At 1M bench
 * vectors in 2,000 lists (20 references, the exact top 50): least similar `l2` 30 probes recall@50 0.748-0.750
 * (page statement 12.5 ms of PostgreSQL CPU, load 1.3-2.3), `ip` 22 probes 0.743, 25 probes 0.772-0.774 (8.8 ms),
 * 30 probes 0.803; most similar 10 probes 0.997-0.999 with either (7.6 / 6.0 ms). The job builds the `ip` index next to an `l2` one, which serves until it is valid and
 * is dropped then (tick).
 */
export type FarSideKind = "ip" | "l2";

/** The name of a vector settings' far-side index of a kind (FarSideKind). Least similar searches it. */
export function farSideIndexName(settingsId: string, dimensions: number, kind: FarSideKind = "ip"): string {
  return `${FAR_PREFIX[kind]}${settingsId.replace(/-/g, "").toLowerCase()}_${dimensions}`;
}

const FAR_PREFIX: Record<FarSideKind, string> = { ip: "record_vectors_ivfi_", l2: "record_vectors_ivfh_" };
/** The operator class and the operator of each kind of far-side index (the start-up check, db/postgres.ts, builds the `ip` one). */
export const FAR_OPS: Record<FarSideKind, { opclass: string; operator: "<#>" | "<->" }> = {
  ip: { opclass: "halfvec_ip_ops", operator: "<#>" },
  l2: { opclass: "halfvec_l2_ops", operator: "<->" },
};

/**
 * The IVFFlat lists of a far-side index over `vectors` vectors: one per 250 vectors, at most
 * FAR_MAX_LISTS, at least 1. Finer than pgvector's advice (rows / 1,000): the far side is flat, and small
 * lists let the probes take the parts of a topic that point away from the query rather than whole topics.
 * Bench vectors (300 topics), least similar recall@50 of 20 queries against the exact top 50 at the same
 * vectors scanned, PostgreSQL CPU per page statement: 300K vectors, 300 lists (1,000 each) x 10 probes 0.27
 * (21 ms), 600 lists x 20 probes 0.80 (12 ms), 1,200 lists x 40 probes 0.83 (11.5 ms); 100K, 100 lists x 10
 * probes 0.45 (10K vectors scanned), 400 lists x 20 probes 0.73 (5K scanned, 5.5 ms), x 40 0.87 (9.5 ms).
 */
export function farSideLists(vectors: number): number {
  return Math.min(FAR_MAX_LISTS, Math.max(1, Math.round(vectors / 250)));
}

/**
 * pgvector's k-means keeps a float per (sample, list) with 50 samples per list: its memory grows with the
 * square of the lists (~0.9 GB at 2,000 lists of 384 dimensions, farSideBuildMemoryMb), hence the cap.
 */
const FAR_MAX_LISTS = 2000;

/**
 * The `maintenance_work_mem` (MB) pgvector's IVFFlat build asks for `lists` lists of `dimensions`
 * dimensions at half precision (its k-means check, ivfkmeans.c), with a margin: the build sets at least
 * this for its session, as PostgreSQL's default (64 MB) refuses ~600 lists and more.
 */
export function farSideBuildMemoryMb(lists: number, dimensions: number): number {
  const samples = Math.max(10_000, lists * 50);
  const item = 8 * Math.ceil((8 + 2 * dimensions) / 8);
  const bytes =
    (samples + 2 * lists) * item + lists * (8 + 4 * dimensions) + 4 * samples * lists + 4 * lists * lists + 8 * samples + 12 * lists;
  return Math.ceil(bytes / 2 ** 20) + 16;
}

/**
 * The lists a least-similar search probes: 1.25% of them, at least 20 (every list below 20). At 1M bench
 * vectors in 2,000 lists (tools/bench `bench:pg-similarity`: 20 references, the exact top 50 by a full
 * scan, the annotation page's filters): the `ip` index (FarSideKind, session 17) 25 lists recall@50 0.774
 * (the page's 50th 0.0033 farther in cosine than the exact 50th), where the `l2` index needed 30 for
 * 0.750-0.753 (session 16: 1.5%; 20 lists 0.675, 40 lists 0.812): a sixth fewer vectors probed. Every probed
 * vector costs ~0.6-1 µs (pgvector's per-tuple work and sort; its lists are read through a ring buffer,
 * so they never stay in shared buffers). Earlier, 1,000 lists (`l2`): 20 lists 0.79, 100 lists 0.96
 * (~88 ms); the HNSW index for the negated vector 0.18. Binary codes do not serve this order: over all 1M
 * vectors the exact least similar 50 of a record rank at a median 2,595th (worst 25,000th) by the Hamming
 * distance to its bits' complement (most similar: worst 142nd).
 */
export function farSideProbes(lists: number): number {
  return Math.min(lists, Math.max(20, Math.ceil(lists * 0.0125)));
}

/**
 * The lists a most-similar search probes in the same IVFFlat index: 0.5% of them, at least 5 (every list
 * below 5). A query's nearest records sit in the lists nearest to it (its topic), unlike the flat far
 * side. At 1M bench vectors (1,000 lists; 10 records, the exact top 50 by a full scan; PostgreSQL CPU of
 * the page statement with the annotation page's filters, load 12-14): 5 lists recall@50 1.000 (6 ms),
 * 10 lists 1.000 (11 ms), 20 lists 1.000 (25 ms); the HNSW index at ef_search 1,000 0.952 (12 ms, and a
 * p95 of 320 ms at 1 client from graph walks stuck in a neighbouring cluster). Finer lists: 300K vectors
 * in 1,200 lists, 6 probes 1.000 (20 queries); in 600 lists, 3 probes 1.000; 100K in 400 lists, 5 probes 1.000.
 * 1M in 2,000 lists (session 16, 20 references): 10 probes 1.000 with and without a metadata filter (9-14.5
 * ms), 5 probes 0.997 / 0.973 (6-11 ms); the HNSW index at ef_search 1,000 0.911 (min 0.02) at 14.6-53 ms.
 */
export function nearSideProbes(lists: number): number {
  return Math.min(lists, Math.max(5, Math.ceil(lists * 0.005)));
}

/**
 * Whether a far-side index built with the lists of its `reloptions` (`lists=N`) is too coarse for the
 * `tuples` it holds now (pg_class.reltuples, kept by (auto)vacuum): farSideLists has doubled.
 */
export function farSideOutgrown(reloptions: string[] | null, tuples: number): boolean {
  const lists = farSideListsOf(reloptions);
  return lists !== null && tuples > 0 && farSideLists(tuples) >= 2 * lists;
}

/** The lists of an IVFFlat index's `reloptions`; null when absent. */
function farSideListsOf(reloptions: string[] | null): number | null {
  const option = (reloptions ?? []).find((o) => o.startsWith("lists="));
  const lists = option ? Number(option.slice("lists=".length)) : NaN;
  return Number.isInteger(lists) && lists > 0 ? lists : null;
}

/** vectorIndexName (farSideIndexName for `far` / `oldFar`) in SQL, over a settings row's `id` and `dimensions` columns (`s.` by default). */
function vectorIndexNameSql(kind: VectorIndexKind | "far" | "oldFar", row = "s"): string {
  const prefix = kind === "far" ? FAR_PREFIX.ip : kind === "oldFar" ? FAR_PREFIX.l2 : namePrefix(kind);
  return `'${prefix}' || replace(lower(${row}.id), '-', '') || '_' || ${row}.dimensions`;
}

/** The expression the `halfvec` index holds, which a search's ORDER BY repeats (else the planner cannot use the index). */
export function halfvecExpression(column: string, dimensions: number): string {
  return `(l2_normalize(${column}::vector(${dimensions}))::halfvec(${dimensions}))`;
}

/** pgvector's largest dimensions a `halfvec` index takes. */
const MAX_DIMENSIONS = 4000;

const validSettings = (settingsId: string, dimensions: number) =>
  /^[0-9a-fA-F-]{1,64}$/.test(settingsId) && Number.isInteger(dimensions) && dimensions >= 1 && dimensions <= 16000;

/**
 * The vectors a similarity search scans while its settings has no valid index (after an import until the
 * job's build ends, a settings below MIN_VECTORS, pgvector before 0.7, more than 4,000 dimensions): those of
 * the FALLBACK_VECTORS smallest record ids, exactly (boundedVectors), as many as a settings without an
 * index may hold (MIN_VECTORS). A settings of fewer vectors gets the exact answer; a larger one the exact
 * answer among them (record ids are time-ordered UUIDs: its first records; at 1M, recall@50 ~1-2%, scores
 * exact). An exact scan of all 1M bench vectors cost 10.3 s (~15 s of PostgreSQL CPU with 2 parallel
 * workers, load 2-3), which a team's similarity calls would queue behind on 2 cores; 20,000 cost 107 ms warm
 * (124-127 ms of CPU per page statement at load 7-8, `bench:pg-similarity` bounded:20000; ~5-6 µs a
 * vector: the record's lookup, the cast to `vector`, the distance), hence half that.
 */
export const FALLBACK_VECTORS = MIN_VECTORS;

/**
 * The vectors of a settings (its id a bound parameter) a search scans without an index, as a subquery
 * standing for `record_vectors` (FALLBACK_VECTORS): in record id order through the unique index, so that
 * the same ones are scanned whatever the plan.
 */
export function boundedVectors(settingsParam: string, limit: number = FALLBACK_VECTORS): string {
  return `(SELECT vector_settings_id, record_id, vector FROM record_vectors WHERE vector_settings_id = ${settingsParam} ORDER BY record_id LIMIT ${Math.max(1, Math.floor(limit))})`;
}

/**
 * pgvector's IVFFlat index per vector settings (farSideIndexName: named after the far side it served
 * first), which serves both orders, built in the background, never by a search.
 *
 * A job looks every TICK_MS for vector settings without a valid index (a new settings, a database
 * migrated or restored without it, an index dropped or left invalid by a failed or cancelled build) and
 * builds it with `CREATE INDEX CONCURRENTLY` on a connection of its own: writes go on during the build,
 * and until the index is valid searches scan boundedVectors (or an HNSW index an earlier version left).
 * The build waits until the writes of record_vectors have paused for SETTLE_MS (PostgreSQL's own
 * counters, so other replicas' writes count): its k-means lists are fixed at the build, so that built
 * over a few vectors in the middle of an import they would fit the vectors that came later badly; built
 * after it, they fit them all (74 s at 1M x 384, load 3-4). Once built, the index takes each new vector
 * as it is written (~0.12 ms each; earlier versions' HNSW graph ~2-2.8 ms). Once the settings' vectors
 * have doubled since, it is rebuilt with more lists next to the old one (REINDEX CONCURRENTLY), which
 * serves until the swap. An advisory lock per index keeps two replicas from building the same one.
 */
export class PostgresVectorIndexes {
  /** The names of the indexes known valid. */
  private readonly valid = new Set<string>();
  private readonly building = new Map<string, Promise<void>>();
  /** The builds of this process, one after the other. */
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The backends running a build, cancelled by `stop` (minutes at 1M vectors). */
  private readonly backends = new Set<number>();
  private readonly report = backgroundErrorLogger("PostgreSQL: building a similarity (IVFFlat) index failed");
  private readonly loop = new BackgroundLoop(() => this.tick(), this.report);
  private halfvecSupport: Promise<boolean> | null = null;
  /** What a search last found of an earlier version's HNSW index per settings and dimensions, and when (usable). */
  private readonly usableSeen = new Map<string, { kind: VectorIndexKind | null; at: number }>();
  /** Since when this process saw an index replaced by a valid one (dropped REPLACED_MS later: dropReplaced). */
  private readonly replacedSince = new Map<string, number>();
  /** What a search last found of a settings' IVFFlat index (its lists; null: none valid), and when (farSide). */
  private readonly farSeen = new Map<string, { lists: number | null; kind: FarSideKind; at: number }>();

  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: {
      tickMs?: number;
      settleMs?: number;
      maxWaitMs?: number;
      minVectors?: number;
      replacedMs?: number;
      tricklePerSecond?: number;
      rateWindowMs?: number;
    } = {},
  ) {}

  /** The write counter of record_vectors last seen, when it last changed, and since when an index is missing. */
  private writes: { count: number; changed: number } | null = null;
  private missingSince: number | null = null;
  /** The write counter at the start of the current rate window, and the last full window's writes per second. */
  private rateWindow: { count: number; at: number } | null = null;
  private writesPerSecond: number | null = null;

  /** True once the settings' IVFFlat index is known valid (build, tick). */
  isValid(settingsId: string, dimensions: number): boolean {
    return this.valid.has(farSideIndexName(settingsId, dimensions));
  }

  /** pgvector 0.7+ has halfvec and l2_normalize, which the index holds. */
  private supportsHalfvec(): Promise<boolean> {
    this.halfvecSupport ??= queryRows<{ v: string | null }>(
      this.db,
      "SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'",
      [],
    )
      .then((rows) => {
        const [major, minor] = (rows[0]?.v ?? "0.0").split(".").map(Number);
        return (major ?? 0) > 0 || (minor ?? 0) >= 7;
      })
      .catch(() => {
        this.halfvecSupport = null;
        return false;
      });
    return this.halfvecSupport;
  }

  /** Whether a settings of these dimensions gets an index (pgvector 0.7+, at most 4,000 dimensions); else searches scan boundedVectors. */
  async indexable(dimensions: number): Promise<boolean> {
    return dimensions <= MAX_DIMENSIONS && (await this.supportsHalfvec());
  }

  /**
   * A valid HNSW index an earlier version left for this settings (VectorIndexKind), which a search uses
   * while the settings has no valid IVFFlat index (its ORDER BY repeats that index's expression), from
   * the catalog: `halfvec`, else `vector`, else null. Kept USABLE_TTL_MS, as the job drops it.
   */
  async usable(settingsId: string, dimensions: number): Promise<VectorIndexKind | null> {
    const key = `${settingsId}/${dimensions}`;
    const seen = this.usableSeen.get(key);
    if (seen && Date.now() - seen.at < USABLE_TTL_MS) return seen.kind;
    const rows = await queryRows<{ name: string }>(
      this.db,
      "SELECT c.relname AS name FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname IN ($1, $2) AND i.indisvalid",
      [vectorIndexName(settingsId, dimensions, "halfvec"), vectorIndexName(settingsId, dimensions, "vector")],
    );
    const names = rows.map((r) => r.name);
    const kind = names.includes(vectorIndexName(settingsId, dimensions, "halfvec")) ? "halfvec" : names.length > 0 ? "vector" : null;
    this.usableSeen.set(key, { kind, at: Date.now() });
    return kind;
  }

  /**
   * The lists and the operator of a settings' valid far-side index (`ip` when valid, else an `l2` one of
   * earlier versions: FarSideKind), from the catalog (another replica may have built it), or null (none
   * valid: an earlier version's HNSW index, or boundedVectors). Kept USABLE_TTL_MS: an operator or a failed
   * rebuild may drop the index, and an ORDER BY the index no longer serves would sort every vector.
   */
  async farSide(
    settingsId: string,
    dimensions: number,
  ): Promise<{ lists: number; probes: number; nearProbes: number; operator: "<#>" | "<->" } | null> {
    const key = `${settingsId}/${dimensions}`;
    let seen = this.farSeen.get(key);
    if (!seen || Date.now() - seen.at >= USABLE_TTL_MS) {
      const rows = await queryRows<{ name: string; options: string[] | null }>(
        this.db,
        "SELECT c.relname AS name, c.reloptions AS options FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname IN ($1, $2) AND i.indisvalid",
        [farSideIndexName(settingsId, dimensions, "ip"), farSideIndexName(settingsId, dimensions, "l2")],
      );
      const row = rows.find((r) => r.name === farSideIndexName(settingsId, dimensions, "ip")) ?? rows[0];
      const kind: FarSideKind = row?.name === farSideIndexName(settingsId, dimensions, "ip") ? "ip" : "l2";
      seen = row ? { lists: farSideListsOf(row.options) ?? 1, kind, at: Date.now() } : { lists: null, kind, at: Date.now() };
      this.farSeen.set(key, seen);
    }
    if (seen.lists === null) return null;
    return {
      lists: seen.lists,
      probes: farSideProbes(seen.lists),
      nearProbes: nearSideProbes(seen.lists),
      operator: FAR_OPS[seen.kind].operator,
    };
  }

  /**
   * Builds the IVFFlat index of a settings unless it is valid (idempotent), with the lists its vectors have
   * now (farSideLists); `rebuild`: also when valid but outgrown (farSideOutgrown), with more lists next to
   * the old one. One build at a time in this process (each holds a connection of the pool while it runs),
   * one per index across replicas through an advisory lock: with `wait: false` a replica that finds the
   * lock taken leaves the build to its holder (the job looks again later); by default it waits for it and
   * then finds the index valid. k-means over a sample and one pass over the vectors: 74 s at 1M x 384
   * (load 3-4), ~790 MB.
   */
  async build(settingsId: string, dimensions: number, options: { wait?: boolean; rebuild?: boolean } = {}): Promise<void> {
    if (!validSettings(settingsId, dimensions) || !(await this.indexable(dimensions))) return;
    const name = farSideIndexName(settingsId, dimensions);
    const rebuild = options.rebuild ?? false;
    const pending = this.building.get(name);
    if (pending) await pending;
    if ((this.valid.has(name) && !rebuild) || this.stopped) return;
    if (this.building.has(name)) return this.build(settingsId, dimensions, options);
    const run = this.chain.then(() => this.buildOnce(settingsId, dimensions, options.wait ?? true, rebuild));
    this.chain = run.catch(() => undefined);
    const tracked = run.finally(() => this.building.delete(name));
    this.building.set(name, tracked);
    return tracked;
  }

  private async buildOnce(settingsId: string, dimensions: number, wait: boolean, rebuild: boolean): Promise<void> {
    const name = farSideIndexName(settingsId, dimensions);
    if ((this.valid.has(name) && !rebuild) || this.stopped) return;
    // One connection for the lock and the build (CREATE INDEX CONCURRENTLY runs outside a transaction).
    await this.db.connection().execute(async (conn) => {
      const key = advisoryKey(`vector-index:${name}`);
      const backend = await backendPid(conn);
      this.backends.add(backend);
      try {
        if (wait) await sql.raw(`SELECT pg_advisory_lock(${key})`).execute(conn);
        else {
          const locked = await queryRows<{ ok: boolean }>(conn, `SELECT pg_try_advisory_lock(${key}) AS ok`, []);
          if (!locked[0]?.ok) return;
        }
        const state = await queryRows<{ valid: boolean; options: string[] | null; tuples: number | string }>(
          conn,
          "SELECT i.indisvalid AS valid, c.reloptions AS options, c.reltuples AS tuples FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = $1",
          [name],
        );
        // What a REINDEX CONCURRENTLY cut short left (its new index, invalid): dropped, and the rebuild done again.
        const leftovers = (
          await queryRows<{ name: string }>(conn, "SELECT relname AS name FROM pg_class WHERE relname LIKE $1", [`${name}\\_cc%`])
        ).filter((left) => /^record_vectors_ivfi_[0-9a-f]{1,64}_\d{1,5}_cc(new|old)\d*$/.test(left.name));
        for (const left of leftovers) await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${left.name}`).execute(conn);
        const now = state[0];
        const outgrown = Boolean(now?.valid) && (leftovers.length > 0 || (rebuild && farSideOutgrown(now!.options, Number(now!.tuples))));
        if (now?.valid && !outgrown) {
          this.valid.add(name);
          return;
        }
        if (this.stopped) return;
        const counted = await queryRows<{ n: number | string }>(
          conn,
          "SELECT count(*) AS n FROM record_vectors WHERE vector_settings_id = $1",
          [settingsId],
        );
        const lists = farSideLists(Number(counted[0]?.n ?? 0));
        // For this session only (reset below): what pgvector's k-means asks, when more than set.
        const needKb = farSideBuildMemoryMb(lists, dimensions) * 1024;
        const setKb = await queryRows<{ kb: number | string }>(
          conn,
          "SELECT setting AS kb FROM pg_settings WHERE name = 'maintenance_work_mem'",
          [],
        );
        if (Number(setKb[0]?.kb ?? 0) < needKb) await sql.raw(`SET maintenance_work_mem = '${needKb}kB'`).execute(conn);
        if (outgrown) {
          // Built again next to the old index, which serves searches until the swap (its lists in the
          // catalog already say the new number: searches probe their share of those meanwhile).
          await sql.raw(`ALTER INDEX ${name} SET (lists = ${lists})`).execute(conn);
          await sql.raw(`REINDEX INDEX CONCURRENTLY ${name}`).execute(conn);
        } else {
          // A build that failed or was cancelled leaves an invalid index behind: it is built again.
          if (now) await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`).execute(conn);
          await sql
            .raw(
              `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON record_vectors USING ivfflat (${halfvecExpression("vector", dimensions)} ${FAR_OPS.ip.opclass}) WITH (lists = ${lists}) WHERE vector_settings_id = '${settingsId}'`,
            )
            .execute(conn);
        }
        this.valid.add(name);
        this.farSeen.delete(`${settingsId}/${dimensions}`);
      } finally {
        this.backends.delete(backend);
        // A cancelled statement does not end the session: the lock is released here (and with the session),
        // and the build's memory setting reset for the pool's next user of the connection.
        await sql
          .raw(`RESET maintenance_work_mem; SELECT pg_advisory_unlock_all()`)
          .execute(conn)
          .catch(() => undefined);
      }
    });
  }

  /**
   * Drops the indexes of deleted settings, and an index a valid IVFFlat index replaced (an earlier version's
   * HNSW index, its `l2` IVFFlat index); then builds every vector settings' missing, invalid or outgrown
   * IVFFlat index, one at a time, once the writes of record_vectors have paused (or after MAX_WAIT_MS of a
   * trickle of writes) and the settings has MIN_VECTORS vectors.
   */
  async tick(): Promise<void> {
    const settings = await queryRows<{
      id: string;
      dimensions: number;
      hnsw: boolean | null;
      old: boolean | null;
      far: boolean | null;
      far_tuples: number | null;
      far_options: string[] | null;
      old_far: boolean | null;
      far_left: boolean;
    }>(
      this.db,
      `SELECT s.id, s.dimensions, hi.indisvalid AS hnsw, vi.indisvalid AS old,
              fi.indisvalid AS far, fc.reltuples AS far_tuples, fc.reloptions AS far_options, oi.indisvalid AS old_far,
              EXISTS (SELECT 1 FROM pg_class lc WHERE lc.relname LIKE replace(${vectorIndexNameSql("far")}, '_', '\\_') || '\\_cc%') AS far_left
       FROM vectors_settings s
       LEFT JOIN pg_class hc ON hc.relname = ${vectorIndexNameSql("halfvec")}
       LEFT JOIN pg_index hi ON hi.indexrelid = hc.oid
       LEFT JOIN pg_class vc ON vc.relname = ${vectorIndexNameSql("vector")}
       LEFT JOIN pg_index vi ON vi.indexrelid = vc.oid
       LEFT JOIN pg_class fc ON fc.relname = ${vectorIndexNameSql("far")}
       LEFT JOIN pg_index fi ON fi.indexrelid = fc.oid
       LEFT JOIN pg_class oc ON oc.relname = ${vectorIndexNameSql("oldFar")}
       LEFT JOIN pg_index oi ON oi.indexrelid = oc.oid`,
      [],
    );
    await this.dropOrphans();
    const missing: { id: string; dimensions: number; rebuild: boolean }[] = [];
    for (const s of settings) {
      const dimensions = Number(s.dimensions);
      const far = farSideIndexName(s.id, dimensions);
      if (s.far) this.valid.add(far);
      else this.valid.delete(far);
      // An `l2` IVFFlat index of earlier versions serves until the `ip` one is valid (farSide), then goes;
      // so do earlier versions' HNSW indexes once either is valid (migration 0034 dropped those it found so).
      if (s.far && s.old_far !== null) await this.dropReplaced(farSideIndexName(s.id, dimensions, "l2"));
      if (s.far || s.old_far) {
        if (s.hnsw !== null) await this.dropReplaced(vectorIndexName(s.id, dimensions, "halfvec"));
        if (s.old !== null) await this.dropReplaced(vectorIndexName(s.id, dimensions, "vector"));
      }
      if (!(await this.indexable(dimensions))) continue;
      const rebuild = Boolean(s.far) && (Boolean(s.far_left) || farSideOutgrown(s.far_options, Number(s.far_tuples ?? 0)));
      if ((!s.far || rebuild) && (await this.enoughVectors(s.id))) missing.push({ id: s.id, dimensions, rebuild });
    }
    if (missing.length === 0) {
      this.missingSince = null;
      return;
    }
    const now = Date.now();
    this.missingSince ??= now;
    const counted = await queryRows<{ n: number | string }>(
      this.db,
      "SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) AS n FROM pg_stat_user_tables WHERE relid = 'record_vectors'::regclass",
      [],
    );
    const count = Number(counted[0]?.n ?? 0);
    if (!this.writes || this.writes.count !== count) this.writes = { count, changed: now };
    const settled = now - this.writes.changed >= (this.options.settleMs ?? SETTLE_MS);
    if (!this.rateWindow) this.rateWindow = { count, at: now };
    else if (now - this.rateWindow.at >= (this.options.rateWindowMs ?? RATE_WINDOW_MS)) {
      this.writesPerSecond = ((count - this.rateWindow.count) * 1000) / (now - this.rateWindow.at);
      this.rateWindow = { count, at: now };
    }
    const trickle = this.writesPerSecond !== null && this.writesPerSecond < (this.options.tricklePerSecond ?? TRICKLE_PER_SECOND);
    if (!settled && !(trickle && now - this.missingSince >= (this.options.maxWaitMs ?? MAX_WAIT_MS))) return;
    for (const s of missing) {
      if (this.stopped) return;
      await this.build(s.id, s.dimensions, { wait: false, rebuild: s.rebuild });
    }
  }

  /**
   * Drops an index once the one that replaced it has been valid for a while (REPLACED_MS): searches of
   * other replicas that last saw only the old one (usable, farSide: USABLE_TTL_MS) look again meanwhile.
   */
  private async dropReplaced(name: string): Promise<void> {
    const since = this.replacedSince.get(name) ?? Date.now();
    this.replacedSince.set(name, since);
    if (Date.now() - since < (this.options.replacedMs ?? REPLACED_MS) || this.stopped) return;
    await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`).execute(this.db);
    this.replacedSince.delete(name);
    this.valid.delete(name);
  }

  /** Whether a settings has at least `minVectors` vectors (counted through the unique index on (settings, record), no further). */
  private async enoughVectors(settingsId: string): Promise<boolean> {
    const floor = this.options.minVectors ?? MIN_VECTORS;
    if (floor <= 0) return true;
    const rows = await queryRows<{ n: number | string }>(
      this.db,
      "SELECT count(*) AS n FROM (SELECT 1 FROM record_vectors WHERE vector_settings_id = $1 LIMIT $2) AS first",
      [settingsId, floor],
    );
    return Number(rows[0]?.n ?? 0) >= floor;
  }

  /**
   * Drops the indexes of vector settings that no longer exist (a dataset or its settings deleted), with
   * what a rebuild cut short left of them (`_ccnew`): each partial index's predicate is evaluated on every
   * write of record_vectors, so hundreds of leftovers (a test suite's datasets, a team's deleted ones)
   * would tax every import.
   */
  private async dropOrphans(): Promise<void> {
    const orphans = await queryRows<{ name: string }>(
      this.db,
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid = 'record_vectors'::regclass AND c.relname ~ '^record_vectors_(hnswh?|ivf[hi])_'
         AND NOT EXISTS (SELECT 1 FROM vectors_settings s
           WHERE regexp_replace(c.relname, '_cc(new|old)[0-9]*$', '') IN (${vectorIndexNameSql("vector")}, ${vectorIndexNameSql("halfvec")}, ${vectorIndexNameSql("far")}, ${vectorIndexNameSql("oldFar")}))`,
      [],
    );
    for (const { name } of orphans) {
      if (this.stopped) return;
      if (!/^record_vectors_(hnswh?|ivf[hi])_[0-9a-f]{1,64}_\d{1,5}(_cc(new|old)\d*)?$/.test(name)) continue;
      this.valid.delete(name);
      await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`).execute(this.db);
    }
  }

  /** Looks for missing indexes every TICK_MS (unref'd) until `stop`. */
  start(): void {
    if (!this.stopped) this.loop.start(this.options.tickMs ?? TICK_MS);
  }

  /** Stops looking, cancels the builds in progress (the next start builds them again) and waits for them to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    const running = this.loop.stop();
    for (const backend of this.backends) await cancelBackend(this.db, backend);
    await Promise.allSettled([running, ...this.building.values()]);
  }
}
