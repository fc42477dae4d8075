import { createHmac, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { SignJWT, jwtVerify } from "jose";
import type { DB, OAuthStatesTable } from "../db/schema.js";

export interface PendingAuthorization {
  provider: string;
  codeVerifier: string;
  nonce: string | null;
  redirectUri: string;
  /** Local path to return to after sign-in. */
  redirectTo: string | null;
}

export class InvalidStateError extends Error {}

const iso = (ms: number) => new Date(ms).toISOString().replace("Z", "");

/**
 * The `state` of an authorization request: a short-lived HS256 token (key derived from the server's
 * signing secret, so it cannot be forged and is not an access token) naming a row of `oauth_states`
 * that holds the PKCE verifier and nonce. Consuming deletes the row atomically, so a state works once,
 * on any replica sharing the database.
 */
export class OAuthStateStore {
  private readonly key: Uint8Array;

  constructor(
    private readonly db: Kysely<DB>,
    secret: string,
    private readonly ttlSeconds: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.key = createHmac("sha256", secret).update("tessera/oauth2-state").digest();
  }

  /** Stores a pending request and returns its id (for the browser-binding cookie) and signed state. */
  async create(pending: PendingAuthorization): Promise<{ id: string; state: string }> {
    const id = randomBytes(24).toString("base64url");
    const now = this.clock();
    await this.db.deleteFrom("oauth_states").where("expires_at", "<", iso(now)).execute();
    const row: OAuthStatesTable = {
      id,
      provider: pending.provider,
      code_verifier: pending.codeVerifier,
      nonce: pending.nonce,
      redirect_uri: pending.redirectUri,
      redirect_to: pending.redirectTo,
      expires_at: iso(now + this.ttlSeconds * 1000),
    };
    await this.db.insertInto("oauth_states").values(row).execute();
    const state = await new SignJWT({ prv: pending.provider })
      .setProtectedHeader({ alg: "HS256" })
      .setJti(id)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(now / 1000) + this.ttlSeconds)
      .sign(this.key);
    return { id, state };
  }

  /** Verifies the signed state (and that it belongs to `provider`); returns the row id it names. */
  async verify(state: string, provider: string): Promise<string> {
    try {
      const { payload } = await jwtVerify(state, this.key, { algorithms: ["HS256"], currentDate: new Date(this.clock()) });
      if (payload.prv !== provider || typeof payload.jti !== "string") throw new InvalidStateError("state was issued for another provider");
      return payload.jti;
    } catch (error) {
      if (error instanceof InvalidStateError) throw error;
      throw new InvalidStateError("state is forged, malformed or expired", { cause: error });
    }
  }

  /** Takes the pending request out of the store; null when it was already used or has expired. */
  async consume(id: string): Promise<PendingAuthorization | null> {
    const row = await this.db.deleteFrom("oauth_states").where("id", "=", id).returningAll().executeTakeFirst();
    if (!row || row.expires_at < iso(this.clock())) return null;
    return {
      provider: row.provider,
      codeVerifier: row.code_verifier,
      nonce: row.nonce,
      redirectUri: row.redirect_uri,
      redirectTo: row.redirect_to,
    };
  }
}
