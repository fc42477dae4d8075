import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.js";

describe("first owner", () => {
  it("is 'owner' with a generated password outside a hosted space, whatever the shell's USERNAME", () => {
    const config = loadConfig({ USERNAME: "shell-user", PASSWORD: "shell" }, []);
    expect(config.ownerUsername).toBe("owner");
    expect(config.ownerPassword).toBeNull();
  });
  it("is the space author in a hosted space, or the USERNAME / PASSWORD secrets when set", () => {
    expect(loadConfig({ SPACE_ID: "ada/tessera", SPACE_AUTHOR_NAME: "ada" }, []).ownerUsername).toBe("ada");
    const secrets = loadConfig({ SPACE_ID: "ada/tessera", SPACE_AUTHOR_NAME: "ada", USERNAME: "boss", PASSWORD: "secret-pass" }, []);
    expect([secrets.ownerUsername, secrets.ownerPassword]).toEqual(["boss", "secret-pass"]);
  });
  it("lets TESSERA_OWNER_USERNAME / TESSERA_OWNER_PASSWORD win everywhere", () => {
    const config = loadConfig(
      { SPACE_ID: "ada/tessera", SPACE_AUTHOR_NAME: "ada", TESSERA_OWNER_USERNAME: "root", TESSERA_OWNER_PASSWORD: "pw-12345678" },
      [],
    );
    expect([config.ownerUsername, config.ownerPassword]).toEqual(["root", "pw-12345678"]);
  });
});

describe("embedded store's page cache", () => {
  it("is db/database.ts's default unless TESSERA_SQLITE_CACHE_MIB sets it to 1-4096 MiB", () => {
    expect(loadConfig({}, []).sqliteCacheMib).toBeUndefined();
    expect(loadConfig({ TESSERA_SQLITE_CACHE_MIB: "32" }, []).sqliteCacheMib).toBe(32);
    for (const wrong of ["0", "-4", "lots", "2.5", "100000"])
      expect(loadConfig({ TESSERA_SQLITE_CACHE_MIB: wrong }, []).sqliteCacheMib).toBeUndefined();
  });
});

describe("embedded store's prefix index", () => {
  it("is search/text-index.ts's default unless TESSERA_TEXT_PREFIX_INDEX gives lengths or `none`", () => {
    expect(loadConfig({}, []).textPrefixIndex).toBeUndefined();
    expect(loadConfig({ TESSERA_TEXT_PREFIX_INDEX: "" }, []).textPrefixIndex).toBeUndefined();
    expect(loadConfig({ TESSERA_TEXT_PREFIX_INDEX: "2 3 4" }, []).textPrefixIndex).toBe("2 3 4");
    expect(loadConfig({ TESSERA_TEXT_PREFIX_INDEX: " 2,3 " }, []).textPrefixIndex).toBe("2,3");
    expect(loadConfig({ TESSERA_TEXT_PREFIX_INDEX: "none" }, []).textPrefixIndex).toBe("");
  });
  it("refuses anything else at start, naming what is allowed (a typo neither drops the index nor keeps the default silently)", () => {
    for (const wrong of ["three", "3 x", "3;4", "0", "3 1000", "None"])
      expect(() => loadConfig({ TESSERA_TEXT_PREFIX_INDEX: wrong }, [])).toThrow(
        new ConfigError(
          `TESSERA_TEXT_PREFIX_INDEX=${wrong} is not valid: prefix lengths from 1 to 999 separated by spaces or commas (e.g. "3 4"), "none", or unset.`,
        ),
      );
  });
});

describe("search settings", () => {
  it("TESSERA_TEXT_RANKING: unset or auto is the extension when built, bm25 is bm25(), anything else is refused", () => {
    expect(loadConfig({}, []).textRanking).toBe("auto");
    expect(loadConfig({ TESSERA_TEXT_RANKING: "" }, []).textRanking).toBe("auto");
    expect(loadConfig({ TESSERA_TEXT_RANKING: "auto" }, []).textRanking).toBe("auto");
    expect(loadConfig({ TESSERA_TEXT_RANKING: " bm25 " }, []).textRanking).toBe("bm25");
    for (const wrong of ["bm52", "BM25", "tessera", "0"])
      expect(() => loadConfig({ TESSERA_TEXT_RANKING: wrong }, [])).toThrow(
        new ConfigError(`TESSERA_TEXT_RANKING=${wrong} is not valid: "auto" (the ranking extension when built), "bm25", or unset.`),
      );
  });
  it("TESSERA_TEXT_MATCH_THREADS: unset is the store's default, 0-16 threads, anything else is refused", () => {
    expect(loadConfig({}, []).readThreads).toBeUndefined();
    expect(loadConfig({ TESSERA_TEXT_MATCH_THREADS: "0" }, []).readThreads).toBe(0);
    expect(loadConfig({ TESSERA_TEXT_MATCH_THREADS: "4" }, []).readThreads).toBe(4);
    expect(loadConfig({ TESSERA_TEXT_MATCH_THREADS: "16" }, []).readThreads).toBe(16);
    // Was: "two" gave 0 threads (everything on the request thread), "64" gave 16.
    for (const wrong of ["two", "-1", "1.5", "17", "64"])
      expect(() => loadConfig({ TESSERA_TEXT_MATCH_THREADS: wrong }, [])).toThrow(
        new ConfigError(`TESSERA_TEXT_MATCH_THREADS=${wrong} is not valid: a whole number from 0 to 16, or unset.`),
      );
  });
  it("TESSERA_TEXT_TOTAL_BOUND: unset is 10,000, 0 is always exact, anything but a whole number is refused", () => {
    expect(loadConfig({}, []).textTotalBound).toBe(10_000);
    expect(loadConfig({ TESSERA_TEXT_TOTAL_BOUND: "5" }, []).textTotalBound).toBe(5);
    expect(loadConfig({ TESSERA_TEXT_TOTAL_BOUND: "0" }, []).textTotalBound).toBeNull();
    // Was: every one of these silently counted exactly.
    for (const wrong of ["ten", "-5", "1e3", "2.5"])
      expect(() => loadConfig({ TESSERA_TEXT_TOTAL_BOUND: wrong }, [])).toThrow(
        new ConfigError(`TESSERA_TEXT_TOTAL_BOUND=${wrong} is not valid: a whole number (0 or more), or unset.`),
      );
  });
});

describe("count bounds of search totals", () => {
  it("are 10,000 (text) and 1,000 (filters, PostgreSQL) unless TESSERA_TEXT_TOTAL_BOUND / TESSERA_FILTER_TOTAL_BOUND set them; 0: none; junk: refused", () => {
    expect([loadConfig({}, []).textTotalBound, loadConfig({}, []).filterTotalBound]).toEqual([10_000, 1_000]);
    const set = loadConfig({ TESSERA_TEXT_TOTAL_BOUND: "500", TESSERA_FILTER_TOTAL_BOUND: "250" }, []);
    expect([set.textTotalBound, set.filterTotalBound]).toEqual([500, 250]);
    const none = loadConfig({ TESSERA_TEXT_TOTAL_BOUND: "0", TESSERA_FILTER_TOTAL_BOUND: "0" }, []);
    expect([none.textTotalBound, none.filterTotalBound]).toEqual([null, null]);
    for (const wrong of ["-3", "many", "250.7"])
      expect(() => loadConfig({ TESSERA_FILTER_TOTAL_BOUND: wrong }, [])).toThrow(
        new ConfigError(`TESSERA_FILTER_TOTAL_BOUND=${wrong} is not valid: a whole number (0 or more), or unset.`),
      );
  });
});
