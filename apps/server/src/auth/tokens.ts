import { SignJWT, jwtVerify } from "jose";

export interface TokenClaims {
  identity: string;
  username: string;
  name: string;
  role: string;
  /** The user's session_version when issued. */ ver: number;
}

/** The claims of a token for this user (contract 1.2, plus `ver`: auth/authenticate.ts refuses tokens of an older session version). */
export const claimsOf = (user: {
  id: string;
  username: string;
  first_name: string;
  role: string;
  session_version: number;
}): TokenClaims => ({ identity: user.id, username: user.username, name: user.first_name, role: user.role, ver: user.session_version });

/** HS256 access tokens with the contract's claims (identity, username, name, role, exp) and the session version. */
export class TokenService {
  private readonly key: Uint8Array;
  constructor(
    secret: string,
    private readonly expirationSeconds: number,
  ) {
    this.key = new TextEncoder().encode(secret);
  }

  sign(claims: TokenClaims): Promise<string> {
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + this.expirationSeconds)
      .sign(this.key);
  }

  /**
   * The claims of a valid, unexpired token, or null. A token without the user's id and session version
   * (as versions before them issued) is refused: it could not be told from a token of a deleted user
   * whose username a new user took.
   */
  async verify(token: string): Promise<{ username: string; identity: string; ver: number } | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ["HS256"] });
      if (typeof payload.username !== "string" || typeof payload.identity !== "string" || typeof payload.ver !== "number") return null;
      return { username: payload.username, identity: payload.identity, ver: payload.ver };
    } catch {
      return null;
    }
  }
}
