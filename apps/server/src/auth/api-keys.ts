import { createHash, randomBytes } from "node:crypto";

/**
 * API keys (issue 28, finding 7): `tsr.` + 32 random bytes, shown once (when created or rotated) and
 * stored only as their SHA-256 (a key has 256 random bits, so a plain digest cannot be reversed or
 * guessed; no salt is needed and the lookup stays one indexed equality). A database copy or backup
 * therefore holds no usable key.
 */
export const generateApiKey = (): string => `tsr.${randomBytes(32).toString("base64url")}`;

const PREFIX = "sha256:";

export const hashApiKey = (key: string): string => `${PREFIX}${createHash("sha256").update(key, "utf8").digest("base64url")}`;

/** Whether a stored value is already a digest (the migration hashes the clear keys of older databases once). */
export const isHashedApiKey = (stored: string): boolean => stored.startsWith(PREFIX);

/** A new key: the clear text for the caller to show once, the digest to store. */
export function newApiKey(): { key: string; stored: string } {
  const key = generateApiKey();
  return { key, stored: hashApiKey(key) };
}
