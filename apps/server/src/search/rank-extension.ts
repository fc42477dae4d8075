import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type SQLite from "better-sqlite3";
import type { Kysely } from "kysely";

/**
 * The text ranking extension (apps/server/native/tessera_rank.c, issue 31): an FTS5 auxiliary function
 * `tessera_bm25(records_fts, rows_0, rows_1, ...)` that scores exactly as FTS5's bm25() but takes each
 * phrase's row count (its idf) from its arguments instead of counting it over the whole table before the
 * first row (30-45 ms for two or three common words at 1M records, whatever the rows scored). Built at
 * install (native/build.mjs); loaded on the request thread's connection (db/database.ts) and on the text
 * match threads' (sqlite-read-pool.ts). Without it (no compiler at install, a load error, or
 * `TESSERA_TEXT_RANKING=bm25`) text search ranks with bm25() as before, logged once and shown in
 * GET /api/v1/status (`search_engine.text_ranking`).
 */
/** How the embedded store ranks the text searches that are scored window by window (sqlite-text.ts). */
export interface TextRanking {
  /** `tessera_bm25`: the extension; `bm25`: FTS5's own function. */
  scoring: "tessera_bm25" | "bm25";
  /** The extension's file when loaded, else null. */
  file: string | null;
  /** Why the extension is not used (null when it is), shown in GET /api/v1/status; the log has the details. */
  reason: string | null;
}

const FILE = join("native", "build", "tessera_rank.so");
/** The extension's version this server's calls are written for (native/tessera_rank.c' TESSERA_RANK_VERSION). */
export const RANK_EXTENSION_VERSION = 6;

/** The built extension: native/build/tessera_rank.so of the server package, found from this module (src/search/ or the bundle's dist/); null when not built. */
export function rankExtensionFile(from: string = dirname(fileURLToPath(import.meta.url))): string | null {
  let dir = from;
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, FILE);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

let logged = false;

/**
 * Loads the extension on a connection (`mode` "bm25": not at all). On failure the connection stays as it
 * was and the reason is logged once per process, with the file and the loader's error.
 */
export function loadRankExtension(
  sqlite: SQLite.Database,
  mode: "auto" | "bm25" = "auto",
  /** The extension's file (tests: another one). */
  file: string | null = rankExtensionFile(),
): TextRanking {
  if (mode === "bm25") return { scoring: "bm25", file: null, reason: "TESSERA_TEXT_RANKING=bm25" };
  let reason: string;
  let detail: string;
  if (!file) {
    reason = "the ranking extension is not built";
    detail = "apps/server/native/build.mjs found no C compiler at install, or was not run";
  } else
    try {
      sqlite.loadExtension(file); // its entry point, sqlite3_tesserarank_init, follows from the file's name
      try {
        // A file built from an older source is not used: without tessera_rank_version (before tessera_window), or of another version.
        const version = sqlite.prepare("SELECT tessera_rank_version()").pluck().get();
        if (version === RANK_EXTENSION_VERSION) return { scoring: "tessera_bm25", file, reason: null };
        throw new Error(`version ${String(version)}, this server needs ${RANK_EXTENSION_VERSION}`);
      } catch (error) {
        reason = "the ranking extension is out of date";
        detail = `${file} is built from another version of native/tessera_rank.c (${error instanceof Error ? error.message : String(error)}): run apps/server/native/build.mjs`;
      }
    } catch (error) {
      reason = "the ranking extension did not load";
      detail = `${file}: ${error instanceof Error ? error.message : String(error)}`;
    }
  if (!logged) {
    logged = true;
    console.error(`text search: ranking with FTS5's bm25(), slower on large datasets: ${reason} (${detail})`);
  }
  return { scoring: "bm25", file: null, reason };
}

const rankings = new WeakMap<object, TextRanking>();
/** The embedded store records how its connection ranks (db/database.ts). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Kysely instance, whatever its table types
export function registerTextRanking(db: Kysely<any>, ranking: TextRanking): void {
  rankings.set(db, ranking);
}
/** How a store's text search ranks: bm25() for a connection that did not load the extension. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Kysely instance, whatever its table types
export function textRankingOf(db: Kysely<any>): TextRanking {
  return rankings.get(db) ?? { scoring: "bm25", file: null, reason: "not an embedded store's connection" };
}
