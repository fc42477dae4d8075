import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { datasetTextVersions, queryRows, textVersion, versionRecordsSql } from "./postgres-sql.js";
import { backendPid, cancelBackend } from "./postgres-backend.js";
import { hasShortLists, lengthenShortLists } from "./postgres-rank-longer.js";

/** Words matching at least this many records of a dataset are ranked ahead; below it ts_rank of every match costs < ~30 ms. */
export const FREQUENT_RECORDS = 1000;
/**
 * Records kept per word: the best of those where it occurs at least twice in one field. 8,192 keeps every such record of
 * every word but the ~330 most frequent of the 1M bench records (a word in up to ~9% of them): the SDK's pages of a word deep
 * in its order come from the list, where 1,024 sent a page at offset 2,560 to ranking every match (0.8-2.1 s at 1M). The
 * table holds 32 MB at 1M (11 MB with 1,024; the run aggregates every repeating record of each word either way).
 */
export const RANKED_AHEAD = 8192;
/** The list's records a lookup reads (the first pages'); the rest on demand (postgres-text-ahead-list.ts listedUpTo). */
export const RANKED_FIRST_READ = 1024;
/** A dataset's text version must stay the same this long (seen by this replica) before it is ranked. */
const SETTLE_MS = 5000;
/** How often the replica looks for settled datasets. */
const TICK_MS = 5000;
/** A claim nobody finished after this long is taken over (the replica that made it died). */
const STALE_CLAIM = "30 minutes";

/** A row of `text_ranked_ahead` as lookupWithVersion reads it. */
interface AheadRow {
  ahead_version: number | string;
  ahead_records: number;
  repeated: number;
  listed: number;
  seqs: (number | string)[];
  counts: number[] | null;
}

/** A word ranked ahead, at the dataset's text version `version` (migration 0024). */
export interface RankedAhead {
  version: number;
  /** Records of the dataset that match the word. */
  records: number;
  /** Records where the word occurs at least twice in one field. */
  repeated: number;
  /** Records listed: the best of those, most occurrences in one field, then seq (at most RANKED_AHEAD). */
  listed: number;
  /** The first of them read so far (RANKED_FIRST_READ at the lookup; all `listed` once read on). */
  seqs: number[];
  /**
   * The word's occurrences in the best field of each of `seqs` (migration 0040): a page of the list is scored from them
   * (postgres-occurrence-score.ts). Null for a list ranked before 0040 until the background fills it: scored from the tsvectors.
   */
  counts: number[] | null;
  /**
   * Read in this process: where the word's single occurrences (its matches not listed, in seq order) read so far end, the
   * `count`-th of them the record `seq`, ascending (postgres-text-singles.ts singlesPage).
   */
  singles?: { count: number; seq: number }[];
}

/**
 * The frequent words of PostgreSQL text search ranked ahead (issue 31). ts_rank reads every match's
 * tsvector (a word in 79% of 100K records: ~0.9 s), and so does counting the matches, so neither can
 * be done per search for a common word. But for a query of one lexeme, with the tsvectors'
 * default weights (to_tsvector sets none), ts_rank (tsrank.c calc_rank_or, no normalization) is a
 * strictly increasing function of the number of positions of the lexeme in the field, and the search's
 * score is the best field's: so the full ranking is the records where the word occurs at least twice
 * in one field, by that count (descending) then seq, followed by all the other matches by seq (they tie
 * at one occurrence). Stored here per (dataset, word): the first RANKED_AHEAD of the former, how many
 * there are, and how many records match; postgres-text.ts serves the first pages and the bounded total
 * from them (the following records by seq in the index, the exact scores by ts_rank on the page's
 * records only). Tests compare every answer with the plain ts_rank query (postgres-rank-ahead.test.ts).
 *
 * One statement per dataset computes it in one snapshot, with the version it belongs to: `ts_stat`
 * over each record's fields joined (records per word), then every (record, word) pair of a frequent
 * word that occurs twice or more (100K bench records: ~40 s of PostgreSQL's CPU at load 10). A
 * search uses a word's row only at the dataset's current text version, so any record added, changed
 * or deleted since retires it; the ranking runs again once the version has stayed the same for
 * SETTLE_MS, at most a quarter of the time (each run waits 3 times its duration after it). Replicas
 * share the rows; a claim in `text_ranked_ahead_runs` keeps two of them from ranking the same version.
 */
export class PostgresRankAhead {
  private readonly seen = new Map<string, { version: number; since: number }>();
  /** The version at which each dataset's lists were found (or made) as long as `listLength` allows, by this replica. */
  private readonly fullLength = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private notBefore = 0;
  private stopped = false;
  /** The backend running a ranking statement, cancelled by `stop` (minutes at 1M records). */
  private backend: number | null = null;
  private readonly report = backgroundErrorLogger("PostgreSQL: ranking frequent words ahead failed");

  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: { minRecords?: number; settleMs?: number; tickMs?: number; listLength?: number; firstRead?: number } = {},
  ) {}

  /** The stored ranking of a single plain word (any version: the caller compares it with the current one). */
  async lookup(datasetId: string, word: string): Promise<RankedAhead | null> {
    const rows = await queryRows<{
      version: number | string;
      records: number;
      repeated: number;
      listed: number;
      seqs: (number | string)[];
      counts: number[] | null;
    }>(
      this.db,
      `SELECT version, records, repeated, cardinality(seqs) AS listed, seqs[1:$3] AS seqs, counts[1:$3] AS counts FROM text_ranked_ahead
        WHERE dataset_id = $1 AND word = querytree(plainto_tsquery('tessera_search', $2))`,
      [datasetId, word, this.firstRead],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      version: Number(row.version),
      records: row.records,
      repeated: row.repeated,
      listed: row.listed,
      seqs: row.seqs.map(Number),
      counts: row.counts,
    };
  }

  /** The list's records a lookup reads. */
  private get firstRead(): number {
    return this.options.firstRead ?? RANKED_FIRST_READ;
  }

  /**
   * The dataset's text version and records (textVersionRecords) and the stored ranking of a single plain word (any version),
   * in one statement: a word searched for the first time asks both (one round trip less a call with 50 annotators working).
   */
  async lookupWithVersion(datasetId: string, word: string): Promise<{ version: number; records: number; ahead: RankedAhead | null }> {
    const rows = await queryRows<{ version: number | string; records: number | string } & Partial<AheadRow>>(
      this.db,
      `SELECT v.version, v.records, a.version AS ahead_version, a.records AS ahead_records, a.repeated, cardinality(a.seqs) AS listed,
          a.seqs[1:$3] AS seqs, a.counts[1:$3] AS counts
        FROM (SELECT ${versionRecordsSql("$1")}) v
        LEFT JOIN text_ranked_ahead a ON a.dataset_id = $1 AND a.word = querytree(plainto_tsquery('tessera_search', $2))`,
      [datasetId, word, this.firstRead],
    );
    const row = rows[0];
    const ahead =
      row?.ahead_version != null
        ? {
            version: Number(row.ahead_version),
            records: row.ahead_records!,
            repeated: row.repeated!,
            listed: row.listed ?? 0,
            seqs: (row.seqs ?? []).map(Number),
            counts: row.counts ?? null,
          }
        : null;
    return { version: Number(row?.version ?? 0), records: Number(row?.records ?? 0), ahead };
  }

  /** Looks for settled datasets every TICK_MS (unref'd) until `stop`. */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      if (this.running || Date.now() < this.notBefore) return;
      this.running = this.tick()
        .catch(this.report)
        .finally(() => {
          this.running = null;
        });
    }, this.options.tickMs ?? TICK_MS);
    this.timer.unref();
  }

  /** Stops looking, cancels a run in progress and waits for it to end (before the store closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await cancelBackend(this.db, this.backend);
    await this.running;
  }

  /** One look: ranks each dataset large enough whose text version settled and is not ranked yet (one at a time). */
  async tick(): Promise<void> {
    const rows = await datasetTextVersions(this.db, "text_ranked_ahead_runs", this.options.minRecords ?? FREQUENT_RECORDS);
    const now = Date.now();
    const live = new Set(rows.map((r) => r.id));
    for (const id of this.seen.keys()) if (!live.has(id)) this.seen.delete(id);
    for (const row of rows) {
      if (this.stopped) return;
      const version = Number(row.version);
      const seen = this.seen.get(row.id);
      if (!seen || seen.version !== version) {
        this.seen.set(row.id, { version, since: now });
        continue;
      }
      const ranked = row.stored !== null && Number(row.stored) === version;
      if (ranked && this.fullLength.get(row.id) === version) continue;
      if (now - seen.since < (this.options.settleMs ?? SETTLE_MS)) continue;
      const started = Date.now();
      if (ranked ? await this.lengthen(row.id, version) : await this.rank(row.id, version)) {
        this.notBefore = Date.now() + 3 * (Date.now() - started);
        return;
      }
    }
  }

  /**
   * Makes a dataset's lists ranked at `version` as long as `listLength` allows, once (postgres-rank-longer.ts), unless
   * another replica claimed the dataset; true when this call lengthened some. The claim is the run's row at the same
   * version, unfinished meanwhile (the bench's --settle waits for it).
   */
  async lengthen(datasetId: string, version: number): Promise<boolean> {
    const listLength = this.options.listLength ?? RANKED_AHEAD;
    if (!(await hasShortLists(this.db, datasetId, version, listLength))) {
      this.fullLength.set(datasetId, version);
      return false;
    }
    const claim = await queryRows(
      this.db,
      `UPDATE text_ranked_ahead_runs SET started_at = now(), finished_at = NULL
       WHERE dataset_id = $1 AND version = $2 AND (finished_at IS NOT NULL OR started_at < now() - interval '${STALE_CLAIM}')
       RETURNING dataset_id`,
      [datasetId, version],
    );
    if (claim.length === 0) return false;
    try {
      await this.db.transaction().execute(async (trx) => {
        await queryRows(trx, "SET LOCAL work_mem = '64MB'", []);
        this.backend = await backendPid(trx);
        if (this.stopped) throw new Error("stopped");
        await lengthenShortLists(trx, datasetId, listLength);
      });
      this.fullLength.set(datasetId, version);
      return true;
    } catch (error) {
      if (this.stopped || /foreign key/.test(String(error))) return false;
      this.fullLength.set(datasetId, version); // not again in this process: the lists stay as they were (same answers)
      throw error;
    } finally {
      this.backend = null;
      await queryRows(
        this.db,
        "UPDATE text_ranked_ahead_runs SET finished_at = now() WHERE dataset_id = $1 AND version = $2 AND finished_at IS NULL",
        [datasetId, version],
      ).catch(() => undefined);
    }
  }

  /**
   * Ranks a dataset's frequent words at its current text version, unless another replica claimed
   * that version; true when this call ranked. `claimed` is the version the caller saw (the rows get
   * the version of the statement's own snapshot, which may be newer).
   */
  async rank(datasetId: string, claimed?: number): Promise<boolean> {
    const version = claimed ?? (await textVersion(this.db, datasetId));
    let claim: unknown[];
    try {
      claim = await queryRows(
        this.db,
        `INSERT INTO text_ranked_ahead_runs AS a (dataset_id, version, started_at, finished_at) VALUES ($1, $2, now(), NULL)
         ON CONFLICT (dataset_id) DO UPDATE SET version = EXCLUDED.version, started_at = now(), finished_at = NULL
         WHERE a.version <> EXCLUDED.version OR (a.finished_at IS NULL AND a.started_at < now() - interval '${STALE_CLAIM}')
         RETURNING a.dataset_id`,
        [datasetId, version],
      );
    } catch (error) {
      if (/foreign key/.test(String(error))) return false; // the dataset was deleted meanwhile
      throw error;
    }
    if (claim.length === 0) return false;
    try {
      const ranked = await this.db
        .transaction()
        .execute(async (trx) => {
          await queryRows(trx, "SET LOCAL work_mem = '64MB'", []);
          this.backend = await backendPid(trx);
          if (this.stopped) throw new Error("stopped");
          const rows = await queryRows<{ version: number | string }>(
            trx,
            `WITH v AS (SELECT coalesce(max(id), 0) AS version FROM text_search_changes WHERE dataset_id = $1),
           frequent AS MATERIALIZED (
             SELECT word, ndoc FROM ts_stat(format(
               'SELECT tessera_tsvector_concat(f.tsv) FROM records_fts f JOIN records r ON r.seq = f.record_seq WHERE r.dataset_id = %L GROUP BY f.record_seq', $1::text))
             WHERE ndoc >= $2),
           pairs AS (
             SELECT u.lexeme, f.record_seq AS seq, max(cardinality(u.positions)) AS n
             FROM records_fts f JOIN records r ON r.seq = f.record_seq, unnest(f.tsv) AS u
             WHERE r.dataset_id = $1 AND cardinality(u.positions) >= 2 AND u.lexeme IN (SELECT word FROM frequent)
             GROUP BY 1, 2),
           repeated AS (
             SELECT lexeme, count(*) AS repeated, (array_agg(seq ORDER BY n DESC, seq))[1:$3] AS seqs,
               (array_agg(n ORDER BY n DESC, seq))[1:$3]::smallint[] AS counts FROM pairs GROUP BY lexeme)
           INSERT INTO text_ranked_ahead AS t (dataset_id, word, version, records, repeated, seqs, counts)
           SELECT $1, querytree(('''' || replace(replace(fr.word, '\\', '\\\\'), '''', '''''') || '''')::tsquery), v.version, fr.ndoc,
             coalesce(rp.repeated, 0), coalesce(rp.seqs, '{}'), coalesce(rp.counts, '{}')
           FROM frequent fr CROSS JOIN v LEFT JOIN repeated rp ON rp.lexeme = fr.word
           ON CONFLICT (dataset_id, word) DO UPDATE SET version = EXCLUDED.version, records = EXCLUDED.records,
             repeated = EXCLUDED.repeated, seqs = EXCLUDED.seqs, counts = EXCLUDED.counts
           RETURNING t.version`,
            [datasetId, this.options.minRecords ?? FREQUENT_RECORDS, this.options.listLength ?? RANKED_AHEAD],
          );
          return rows.length > 0 ? Number(rows[0]!.version) : null;
        })
        .finally(() => {
          this.backend = null;
        });
      // The words no longer frequent at this version, and the run's end.
      const at = ranked ?? (await textVersion(this.db, datasetId));
      await queryRows(this.db, "DELETE FROM text_ranked_ahead WHERE dataset_id = $1 AND version <> $2", [datasetId, at]);
      await queryRows(this.db, "UPDATE text_ranked_ahead_runs SET finished_at = now(), version = $2 WHERE dataset_id = $1", [
        datasetId,
        Math.max(at, version),
      ]);
      return true;
    } catch (error) {
      // Another replica (or the next tick) may try again.
      await queryRows(this.db, "DELETE FROM text_ranked_ahead_runs WHERE dataset_id = $1 AND finished_at IS NULL", [datasetId]).catch(
        () => undefined,
      );
      if (this.stopped || /foreign key/.test(String(error))) return false;
      throw error;
    }
  }
}
