import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openEmbeddedStore } from "../db/database.js";
import { bootstrapOwner } from "./owner.js";
import { loadSigningSecret } from "../auth/secrets.js";

describe("first start", () => {
  it("creates the owner once with a generated password, never a fixed default, and persists the signing secret", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-boot-"));
    try {
      const store = await openEmbeddedStore(dir);
      const first = await bootstrapOwner(store.db, "owner", null);
      expect(first?.password).toMatch(/^[A-Za-z0-9_-]{16}$/);
      const other = mkdtempSync(join(tmpdir(), "tessera-boot-"));
      const store2 = await openEmbeddedStore(other);
      const second = await bootstrapOwner(store2.db, "owner", null);
      expect(second?.password).not.toBe(first?.password);
      expect(await bootstrapOwner(store.db, "owner", null)).toBeNull();
      const secret = await loadSigningSecret(store.db, null);
      await store.close();
      const reopened = await openEmbeddedStore(dir);
      expect(await loadSigningSecret(reopened.db, null)).toBe(secret);
      expect(await loadSigningSecret(reopened.db, "from-env")).toBe("from-env");
      await reopened.close();
      await store2.close();
      rmSync(other, { recursive: true, force: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("takes the username and password from the environment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-boot-"));
    const store = await openEmbeddedStore(dir);
    const result = await bootstrapOwner(store.db, "boss", "given-password");
    expect(result).toMatchObject({ username: "boss", password: null, generated: false });
    const row = await store.db.selectFrom("users").selectAll().executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
