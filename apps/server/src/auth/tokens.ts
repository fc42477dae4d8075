import { SignJWT, jwtVerify } from "jose";

export interface TokenClaims { identity: string; username: string; name: string; role: string }

/** HS256 access tokens with the contract's claims (identity, username, name, role, exp). */
export class TokenService {
  private readonly key: Uint8Array;
  constructor(secret: string, private readonly expirationSeconds: number) {
    this.key = new TextEncoder().encode(secret);
  }

  sign(claims: TokenClaims): Promise<string> {
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + this.expirationSeconds)
      .sign(this.key);
  }

  /** The username claim of a valid, unexpired token, or null. */
  async verify(token: string): Promise<string | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"] });
      return typeof payload.username === "string" ? payload.username : null;
    } catch {
      return null;
    }
  }
}
