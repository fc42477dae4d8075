import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";

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
    expect(loadConfig({ TESSERA_TEXT_PREFIX_INDEX: "2 3 4" }, []).textPrefixIndex).toBe("2 3 4");
    expect(loadConfig({ TESSERA_TEXT_PREFIX_INDEX: " 2,3 " }, []).textPrefixIndex).toBe("2,3");
    expect(loadConfig({ TESSERA_TEXT_PREFIX_INDEX: "none" }, []).textPrefixIndex).toBe("");
    // A typo keeps the default instead of dropping the index (and rebuilding it).
    for (const wrong of ["", "three", "3 x", "3;4"])
      expect(loadConfig({ TESSERA_TEXT_PREFIX_INDEX: wrong }, []).textPrefixIndex).toBeUndefined();
  });
});

describe("count bounds of search totals", () => {
  it("are 10,000 (text) and 1,000 (filters, PostgreSQL) unless TESSERA_TEXT_TOTAL_BOUND / TESSERA_FILTER_TOTAL_BOUND set them; 0 or junk: none", () => {
    expect([loadConfig({}, []).textTotalBound, loadConfig({}, []).filterTotalBound]).toEqual([10_000, 1_000]);
    const set = loadConfig({ TESSERA_TEXT_TOTAL_BOUND: "500", TESSERA_FILTER_TOTAL_BOUND: "250.7" }, []);
    expect([set.textTotalBound, set.filterTotalBound]).toEqual([500, 250]);
    for (const none of ["0", "-3", "many"]) {
      const c = loadConfig({ TESSERA_TEXT_TOTAL_BOUND: none, TESSERA_FILTER_TOTAL_BOUND: none }, []);
      expect([c.textTotalBound, c.filterTotalBound]).toEqual([null, null]);
    }
  });
});
